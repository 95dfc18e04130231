// An ES module solution for the Node adapter's tests: the example's run() as its default export,
// but it throws on any operation named "Process", and it declares only two parts.
import example from "../../examples/node/dispatcher.js";

export const HOOKCHECK_PARTS = ["retries", "ordering"];

const ROADMAP_OPERATIONS = ["set_policy", "policy", "endpoint", "dead_letter", "recover"];

// The example offers every part; this one declares two, so it answers as an implementation of
// those alone would: the roadmap's operations are unknown, an outcomes object is invalid.
function withinParts(op) {
  if (!Array.isArray(op)) return op;
  if (ROADMAP_OPERATIONS.includes(op[0])) return ["no such operation"];
  if (op[0] === "enqueue" && op.length === 5 && Array.isArray(op[4])
      && op[4].some((o) => o !== null && typeof o === "object")) {
    return [...op.slice(0, 4), []];
  }
  return op;
}

export default function run(operations) {
  if (operations.some((op) => Array.isArray(op) && op[0] === "Process")) {
    throw new RangeError("no such thing as Process");
  }
  return example.run(operations.map(withinParts));
}
