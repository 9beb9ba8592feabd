/**
 * A refusal or failure the model should read and act on: it becomes a tool_result with
 * is_error set and this message. Anything else thrown by a tool is a bug, reported as such.
 */
export class ToolError extends Error {
  override readonly name = 'ToolError';
}
