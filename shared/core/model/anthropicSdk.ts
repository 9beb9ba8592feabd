import type * as Sdk from '@anthropic-ai/sdk';

let loading: Promise<typeof Sdk> | undefined;
let loaded: typeof Sdk | undefined;

/**
 * The Anthropic SDK, imported at the first real model call rather than with the worker: with
 * its OpenTelemetry dependency it costs a process about 20 MB, which a worker playing scripts,
 * or waiting idle, never needs.
 */
export function anthropicSdk(): Promise<typeof Sdk> {
  loading ??= import('@anthropic-ai/sdk').then((sdk) => {
    loaded = sdk;
    return sdk;
  });
  return loading;
}

/** The SDK once a call has imported it; before that, no error can have come from it. */
export function loadedAnthropicSdk(): typeof Sdk | undefined {
  return loaded;
}
