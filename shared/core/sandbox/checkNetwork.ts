/**
 * `--check-network`: the integration checks' network. `proxy` (the default) is agent code's own:
 * a network of its own, with the run's allowed domains through the filtering proxy; `host` is the
 * host's network, loopback (orca's Redis) included, only when the user names it; `none` is nothing.
 */
export const CHECK_NETWORKS = ['proxy', 'host', 'none'] as const;
export type CheckNetwork = (typeof CHECK_NETWORKS)[number];
export const DEFAULT_CHECK_NETWORK: CheckNetwork = 'proxy';
