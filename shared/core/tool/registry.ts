import { z } from 'zod';
import type { ToolSpec } from '../model/model.js';
import type { AnyTool } from './tool.js';

/**
 * Tools whose schemas are left out of the request until they are asked for (docs/mcp.md,
 * "Deferred loading"). `native`: the model's API finds them itself (`defer_loading`); otherwise
 * the ToolSearch tool activates them, and they are sent from then on.
 */
export interface DeferredTools {
  names: readonly string[];
  native: boolean;
}

/** What the ToolSearch tool sees of the registry: the tools still deferred, and a way to load them. */
export interface DeferredToolCatalog {
  /** The deferred tools not loaded yet, in registration order. */
  deferredTools(): AnyTool[];
  /** Loads these tools' schemas for the rest of the session; returns the names newly loaded. */
  activate(names: readonly string[]): string[];
}

/** The tools one session may call, by name, and the specs the model is sent. */
export class ToolRegistry implements DeferredToolCatalog {
  private readonly byName = new Map<string, AnyTool>();
  private readonly deferred: ReadonlySet<string>;
  private readonly native: boolean;
  /** Deferred tools ToolSearch loaded, in the order it did. */
  private readonly activated: string[] = [];

  constructor(tools: AnyTool[], deferred?: DeferredTools) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`tool ${tool.name} is registered twice`);
      this.byName.set(tool.name, tool);
    }
    this.deferred = new Set(deferred?.names ?? []);
    this.native = deferred?.native ?? false;
  }

  get(name: string): AnyTool | undefined {
    return this.byName.get(name);
  }

  /** Whether the model has this tool's schema: not a deferred tool ToolSearch has yet to load. */
  isLoaded(name: string): boolean {
    return this.native || !this.deferred.has(name) || this.activated.includes(name);
  }

  names(): string[] {
    return [...this.byName.keys()].filter((name) => this.isLoaded(name));
  }

  tools(): AnyTool[] {
    return [...this.byName.values()];
  }

  deferredTools(): AnyTool[] {
    return this.tools().filter((tool) => !this.isLoaded(tool.name));
  }

  activate(names: readonly string[]): string[] {
    const added: string[] = [];
    for (const name of names) {
      if (this.isLoaded(name) || !this.byName.has(name)) continue;
      this.activated.push(name);
      added.push(name);
    }
    return added;
  }

  /** How many leading specs never change: the tools before any ToolSearch activated (the cached prefix). */
  staticCount(): number {
    return this.native ? this.byName.size : this.byName.size - this.deferred.size;
  }

  /**
   * Tool specs: the static tools in registration order, which must stay fixed for the prompt
   * cache to hit, then the tools ToolSearch activated, in the order it did. With native tool
   * search every deferred tool is sent, marked `deferLoading`.
   */
  specs(): ToolSpec[] {
    const spec = (tool: AnyTool): ToolSpec => ({
      name: tool.name,
      description: tool.description,
      input_schema: tool.inputJsonSchema ?? inputSchema(tool.input),
      ...(this.native && this.deferred.has(tool.name) ? { deferLoading: true } : {}),
    });
    const fixed = this.tools().filter((tool) => this.native || !this.deferred.has(tool.name));
    const loaded = this.activated.map((name) => this.byName.get(name)!);
    return [...fixed, ...loaded].map(spec);
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
