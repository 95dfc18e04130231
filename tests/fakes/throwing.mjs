// An ES module solution for the Node adapter's tests: the example's run() as its default export,
// but it throws on any operation named "Process", and it declares only two parts.
import example from "../../examples/node/dispatcher.js";

export const HOOKCHECK_PARTS = ["retries", "ordering"];

export default function run(operations) {
  if (operations.some((op) => Array.isArray(op) && op[0] === "Process")) {
    throw new RangeError("no such thing as Process");
  }
  return example.run(operations);
}
