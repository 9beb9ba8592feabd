import { describe, expect, it } from 'vitest';
import { parseRule } from '../../shared/policy/permissions/rule.js';
import { ruleAppliesTo } from '../../shared/policy/permissions/ruleMatch.js';
import {
  expandServerConfig,
  McpConfigError,
  type McpServerEntry,
  parseMcpConfig,
  projectServerApproval,
} from '../../shared/tools/mcp/mcpConfig.js';
import { resultForModel } from '../../shared/tools/mcp/mcpResult.js';
import { selectServers } from '../../shared/tools/mcp/mcpSelection.js';
import { mcpToolName } from '../../shared/tools/mcp/mcpToolName.js';
import { toolDeferral, toolSearchSetting } from '../../shared/tools/mcp/toolDeferral.js';
import { toolNamed } from '../support/toolNamed.js';

const MCP_JSON = JSON.stringify({
  mcpServers: {
    github: { type: 'http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } },
    db: { command: 'npx', args: ['-y', 'db-server', '--url', '${DB_URL:-postgres://localhost/dev}'], env: { LEVEL: '${LEVEL}' } },
  },
});

describe('MCP config', () => {
  it("reads Claude Code's .mcp.json: stdio servers by command, http ones by type and url", () => {
    const servers = parseMcpConfig(MCP_JSON, '.mcp.json', 'project');
    expect(servers.map(({ name, scope, config }) => [name, scope, config])).toEqual([
      ['github', 'project', { type: 'http', url: 'https://api.example.com/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } }],
      [
        'db',
        'project',
        { command: 'npx', args: ['-y', 'db-server', '--url', '${DB_URL:-postgres://localhost/dev}'], env: { LEVEL: '${LEVEL}' } },
      ],
    ]);
    expect(parseMcpConfig(undefined, '.mcp.json', 'project')).toEqual([]);
  });

  it('names the file and the field when a definition is wrong', () => {
    expect(() => parseMcpConfig('{"mcpServers": {"x": {"args": []}}}', '.mcp.json', 'project')).toThrowError(McpConfigError);
    expect(() => parseMcpConfig('{"mcpServers": {"x": {"args": []}}}', '.mcp.json', 'project')).toThrowError(
      /^\.mcp\.json is invalid: mcpServers\.x: a server needs `command` \(a stdio server\) or `type: "http"` and `url`/,
    );
    expect(() => parseMcpConfig('{"mcpServers": ', '.mcp.json', 'project')).toThrowError(/^\.mcp\.json is not valid JSON/);
  });

  it('expands ${VAR} and ${VAR:-default} everywhere, and names a variable that is unset without a default', () => {
    const [github, db] = parseMcpConfig(MCP_JSON, '.mcp.json', 'project') as [McpServerEntry, McpServerEntry];
    expect(expandServerConfig(db, { LEVEL: 'debug' })).toMatchObject({
      args: ['-y', 'db-server', '--url', 'postgres://localhost/dev'],
      env: { LEVEL: 'debug' },
    });
    expect(expandServerConfig(db, { LEVEL: '', DB_URL: 'postgres://db/prod' })).toMatchObject({
      args: ['-y', 'db-server', '--url', 'postgres://db/prod'],
      env: { LEVEL: '' },
    });
    expect(expandServerConfig(github, { GITHUB_TOKEN: 't0k' })).toMatchObject({ headers: { Authorization: 'Bearer t0k' } });
    expect(() => expandServerConfig(github, {})).toThrowError(
      '${GITHUB_TOKEN} in its definition in .mcp.json is not set and has no default (write ${VAR:-default} for one)',
    );
  });

  it('runs a project server only once approved, as Claude Code does; the user’s own need no approval', () => {
    const local = { label: '.claude/settings.local.json', raw: { enabledMcpjsonServers: ['db'] } };
    const user = { label: '~/.claude/settings.json', raw: { enableAllProjectMcpServers: true, disabledMcpjsonServers: ['github'] } };
    expect(projectServerApproval('db', [local])).toEqual({
      approved: true,
      reason: 'enabledMcpjsonServers in .claude/settings.local.json names it',
    });
    expect(projectServerApproval('github', [local, user])).toEqual({
      approved: false,
      reason: 'disabledMcpjsonServers in ~/.claude/settings.json names it',
    });
    expect(projectServerApproval('other', [local, user]).approved).toBe(true);
    expect(projectServerApproval('github', [local]).reason).toBe(
      'it is a project server the user has not approved: add "github" to enabledMcpjsonServers (or set enableAllProjectMcpServers) in .claude/settings.local.json or ~/.claude/settings.json',
    );

    const available = [
      ...parseMcpConfig(MCP_JSON, '.mcp.json', 'project'),
      ...parseMcpConfig('{"mcpServers": {"mine": {"command": "my-server"}}}', '~/.claude.json', 'user'),
    ];
    const selection = selectServers({
      available,
      wanted: ['db', 'github', 'mine', 'nope', { inline: { command: 'inline-server' } }],
      roleSource: '.claude/agents/db.md',
      approval: [local],
    });
    expect(selection.start.map((entry) => entry.name)).toEqual(['db', 'mine']);
    expect(selection.refused.map((refused) => refused.name)).toEqual(['github', 'nope', 'inline']);
    expect(selection.refused[1]!.reason).toBe(
      'no MCP server of that name is configured (.mcp.json at the repository root, or mcpServers in ~/.claude.json); the configured ones are github, db, mine',
    );
  });
});

describe('MCP tool names and rules', () => {
  it('names tools mcp__<server>__<tool>, with characters the API refuses turned into _', () => {
    expect(mcpToolName('github', 'create_issue')).toBe('mcp__github__create_issue');
    expect(mcpToolName('my server', 'get.sum')).toBe('mcp__my_server__get_sum');
  });

  it('lets a rule name one tool, a whole server, or a server with a wildcard', () => {
    for (const text of ['mcp__github__create_issue', 'mcp__github', 'mcp__github__*']) {
      const rule = parseRule(text, 'deny', 'test');
      expect('problem' in rule, text).toBe(false);
      expect(ruleAppliesTo((rule as { tool: string }).tool, toolNamed('mcp__github__create_issue')), text).toBe(true);
      expect(ruleAppliesTo((rule as { tool: string }).tool, toolNamed('mcp__gitlab__create_issue')), text).toBe(false);
    }
    expect(ruleAppliesTo('mcp__github__create_issue', toolNamed('mcp__github__close_issue'))).toBe(false);
    expect(ruleAppliesTo('mcp__git', toolNamed('mcp__github__create_issue'))).toBe(false);
  });
});

describe('MCP results', () => {
  it('passes text, images and resources on in the API’s shapes, and names what the API cannot take', () => {
    const { text, images } = resultForModel({
      content: [
        { type: 'text', text: 'Here it is:' },
        { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
        { type: 'image', data: 'AAAA', mimeType: 'image/tiff' },
        { type: 'resource', resource: { uri: 'file:///notes.md', text: '# Notes' } },
        { type: 'resource', resource: { uri: 'file:///logo.gif', blob: 'R0lGOD==', mimeType: 'image/gif' } },
        { type: 'resource_link', uri: 'file:///big.csv', name: 'big.csv', mimeType: 'text/csv' },
        { type: 'audio', data: 'AAAAAAAA', mimeType: 'audio/wav' },
      ],
    });
    expect(images).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
      { type: 'image', source: { type: 'base64', media_type: 'image/gif', data: 'R0lGOD==' } },
    ]);
    expect(text.split('\n')).toEqual([
      'Here it is:',
      '[image: image/tiff, 3 bytes, not shown: the API takes images as JPEG, PNG, GIF or WebP]',
      '[resource file:///notes.md]',
      '# Notes',
      '[resource link: big.csv file:///big.csv (text/csv)]',
      '[audio: audio/wav, 6 bytes, not shown: the model takes no audio]',
    ]);
    expect(resultForModel({ content: [], structuredContent: { sum: 5 } }).text).toBe('{\n  "sum": 5\n}');
  });
});

describe('ORCA_TOOL_SEARCH', () => {
  it('reads auto, auto:<percent>, on and off, and refuses anything else by name', () => {
    expect(toolSearchSetting({})).toEqual({ mode: 'auto', share: 0.1 });
    expect(toolSearchSetting({ ORCA_TOOL_SEARCH: 'auto:5' })).toEqual({ mode: 'auto', share: 0.05 });
    expect(toolSearchSetting({ ORCA_TOOL_SEARCH: 'on' })).toEqual({ mode: 'on' });
    expect(toolSearchSetting({ ORCA_TOOL_SEARCH: 'off' })).toEqual({ mode: 'off' });
    expect(() => toolSearchSetting({ ORCA_TOOL_SEARCH: 'sometimes' })).toThrowError(
      'ORCA_TOOL_SEARCH=sometimes is not a setting: use auto, auto:<percent of the window>, on or off',
    );
    expect(toolDeferral({ mcpTools: [], contextWindow: 200_000, setting: { mode: 'on' }, native: false }).deferred).toBeUndefined();
  });
});
