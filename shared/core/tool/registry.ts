import { z } from 'zod';
import type { ToolSpec } from '../model/model.js';
import type { AnyTool } from './tool.js';

/** The tools one session may call, by name, and the specs the model is sent. */
export class ToolRegistry {
  private readonly byName = new Map<string, AnyTool>();

  constructor(tools: AnyTool[]) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
      this.byName.set(tool.name, tool);
    }
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  tools(): AnyTool[] {
    return [...this.byName.values()];
  }

  /** Tool specs in registration order, which must stay fixed for the prompt cache to hit. */
  specs(): ToolSpec[] {
    return this.tools().map((tool) => ({
      name: tool.name,
      description: tool.description,
      input_schema: inputSchema(tool.input),
    }));
  }
}

const schemaCache = new WeakMap<z.ZodType, Record<string, unknown>>();

export function inputSchema(schema: z.ZodType): Record<string, unknown> {
  let json = schemaCache.get(schema);
  if (!json) {
    const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>;
    json = rest;
    schemaCache.set(schema, json);
  }
  return json;
}
