/** LockService's user lock, as the stand-in gives it to Code.js. */

/** The user lock: \`busy\` makes tryLock fail, as when another execution (a poll in flight) holds it. */
export class FakeLock {
  busy = false;
  held = false;
  tryLock(_ms?: number) {
    if (this.busy) return false;
    this.held = true;
    return true;
  }
  waitLock(ms?: number) {
    if (!this.tryLock(ms))
      throw new Error("Exception: Lock timeout: another process was holding the lock for too long.");
  }
  releaseLock() {
    this.held = false;
  }
  hasLock() {
    return this.held;
  }
}
