/**
 * Why one call was stopped on its own, not with its session: the reason its signal is aborted
 * with (an ACP terminal's kill). A tool that says why it stopped says this instead of the
 * session's stopping.
 */
export class CallStopped extends Error {
  override name = 'CallStopped';
}

/** Why a command's signal stopped it, in words for its result. */
export function stopReason(signal: AbortSignal): string {
  return signal.reason instanceof CallStopped ? signal.reason.message : 'the session is stopping';
}
