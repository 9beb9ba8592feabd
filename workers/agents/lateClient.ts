import type * as acp from '@agentclientprotocol/sdk';

/**
 * The ACP client an agent started ahead of its session talks to: each request and notification
 * is answered by the session's client once the session has bound it (agentStart.ts). Until then
 * it waits; nothing the agent asks is answered by anything but orca's rules.
 */
export function lateClient(client: Promise<acp.Client>): acp.Client {
  const method = async <K extends keyof acp.Client>(name: K): Promise<NonNullable<acp.Client[K]>> => {
    const target = await client;
    const found = target[name];
    if (typeof found !== 'function') throw new Error(`orca's ACP client has no ${String(name)}`);
    return (found as (...args: unknown[]) => unknown).bind(target) as NonNullable<acp.Client[K]>;
  };
  return {
    requestPermission: async (params) => (await method('requestPermission'))(params),
    sessionUpdate: async (params) => (await method('sessionUpdate'))(params),
    readTextFile: async (params) => (await method('readTextFile'))(params),
    writeTextFile: async (params) => (await method('writeTextFile'))(params),
    createTerminal: async (params) => (await method('createTerminal'))(params),
    terminalOutput: async (params) => (await method('terminalOutput'))(params),
    waitForTerminalExit: async (params) => (await method('waitForTerminalExit'))(params),
    killTerminal: async (params) => (await method('killTerminal'))(params),
    releaseTerminal: async (params) => (await method('releaseTerminal'))(params),
  };
}
