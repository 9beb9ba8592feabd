import type { Tool as McpToolSpec } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { ToolError } from '../../core/boundary/toolError.js';
import { type AnyTool, defineTool } from '../../core/tool/tool.js';
import type { McpConnection } from './mcpConnection.js';
import { resultForModel } from './mcpResult.js';
import { mcpToolName } from './mcpToolName.js';

/**
 * One tool of an MCP server as an orca tool, so a call goes through the same pipeline as a
 * built-in one: its input checked against the server's JSON Schema (as zod, built from it), the
 * PreToolUse hooks and permission rules under its `mcp__<server>__<tool>` name, the result budget.
 * A tool the server marks read-only (`readOnlyHint`) needs read-only mode; any other reaches
 * outside the workspace, and needs full access or an allow rule, like a command.
 */
export function mcpTool(server: string, spec: McpToolSpec, connection: McpConnection): AnyTool {
  const name = mcpToolName(server, spec.name);
  const { $schema: _ignored, ...schema } = spec.inputSchema as Record<string, unknown>;
  const readOnly = spec.annotations?.readOnlyHint === true;
  const description = [spec.title && spec.title !== spec.name ? spec.title : '', spec.description ?? ''].filter(Boolean).join(': ');
  return defineTool({
    name,
    description: description || `The ${spec.name} tool of the MCP server ${server}.`,
    input: inputFromJsonSchema(schema),
    inputJsonSchema: schema,
    level: readOnly ? 'read-only' : 'full-access',
    readOnly,
    // Another program's output, whatever it does: data to the model, and no family of orca's own.
    family: 'other',
    untrustedOutput: true,
    async call(input, ctx) {
      let result: Awaited<ReturnType<McpConnection['callTool']>>;
      try {
        result = await connection.callTool(spec.name, input as Record<string, unknown>, ctx.signal);
      } catch (error) {
        if (ctx.signal.aborted) throw new ToolError(`${name} was aborted.`);
        throw new ToolError(`MCP server "${server}" failed on ${spec.name}: ${error instanceof Error ? error.message : String(error)}`);
      }
      const { text, images } = resultForModel(result);
      if (result.isError) throw new ToolError(`MCP server "${server}" reported an error from ${spec.name}: ${text}`);
      return { content: text, images, data: { server, tool: spec.name, structuredContent: result.structuredContent } };
    },
  });
}

/** The server's schema as zod; one zod cannot read is checked only for being an object (the server checks it again). */
function inputFromJsonSchema(schema: Record<string, unknown>): z.ZodType {
  try {
    return z.fromJSONSchema(schema as Parameters<typeof z.fromJSONSchema>[0]);
  } catch {
    return z.record(z.string(), z.unknown());
  }
}
