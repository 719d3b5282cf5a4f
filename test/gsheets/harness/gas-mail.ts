/** MailApp's stand-in, with the daily quota and the limits of one message that Google keeps. */

/** A message MailApp.sendEmail sent, as the stand-in recorded it. */
export interface SentMail {
  to: string;
  subject: string;
  body: string;
  htmlBody?: string;
  name?: string;
  atMs: number;
}

/**
 * MailApp as Google documents it: each recipient of each message counts against a daily quota (100 a day on consumer
 * accounts, 1,500 on Workspace), counted here per UTC day of the vm's clock; sending past it throws, as MailApp does
 * ("Service invoked too many times for one day: email"). Shared by every execution, as Google keeps it.
 */
export interface MailState {
  sent: SentMail[];
  /** Recipients allowed per day. */
  dailyQuota: number;
  /** Recipients used per UTC day. */
  used: Map<string, number>;
}

export function fakeMailApp(mail: MailState, now: () => number) {
  const day = () => new Date(now()).toISOString().slice(0, 10);
  const remaining = () => Math.max(0, mail.dailyQuota - (mail.used.get(day()) ?? 0));
  const RECIPIENTS_MAX = 50;
  // A message's body: at most 200 KB on consumer accounts (400 KB on Workspace). Google does not say whether the plain
  // and HTML bodies count apart or together; together, and 200,000 bytes, is the stricter reading.
  const BODY_MAX_BYTES = 200_000;
  return {
    getRemainingDailyQuota: () => remaining(),
    sendEmail(a: any, subject?: string, body?: string, options?: any) {
      const msg = typeof a === "object" ? a : { ...(options || {}), to: a, subject, body };
      const to = String(msg.to || "")
        .split(",")
        .map((x) => x.trim())
        .filter(Boolean);
      if (!to.length) throw new Error("Exception: Invalid argument: recipient");
      for (const t of to) if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(t)) throw new Error(`Exception: Invalid email: ${t}`);
      if (to.length > RECIPIENTS_MAX) throw new Error("Exception: Limit Exceeded: Email Recipients Per Message.");
      if (typeof msg.subject !== "string" || /[\r\n]/.test(msg.subject))
        throw new Error("Exception: Invalid argument: subject");
      if (Buffer.byteLength(String(msg.body ?? "")) + Buffer.byteLength(String(msg.htmlBody ?? "")) > BODY_MAX_BYTES)
        throw new Error("Exception: Limit Exceeded: Email Body Size.");
      if (to.length > remaining()) throw new Error("Exception: Service invoked too many times for one day: email.");
      mail.used.set(day(), (mail.used.get(day()) ?? 0) + to.length);
      mail.sent.push({
        to: to.join(","),
        subject: msg.subject,
        body: String(msg.body ?? ""),
        htmlBody: msg.htmlBody,
        name: msg.name,
        atMs: now(),
      });
    },
  };
}
