/** The sandbox helpers live in test/helpers/sandbox.ts, shared by every suite. */
export { knownUprns, sandbox, scaledSleep, type Sandbox } from "../../helpers/sandbox";
