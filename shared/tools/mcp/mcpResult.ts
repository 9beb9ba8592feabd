import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolResultImage } from '../../core/model/message.js';

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

type ImageType = ToolResultImage['source']['media_type'];

/**
 * An MCP tool's result in the Messages API's shapes: text stays text; an image of a type the API
 * takes becomes an image block after the text; a resource's text is given with its URI; what the
 * API cannot be shown (audio, other binary data) is named, with its size, instead of dropped
 * silently. `structuredContent` stands in when the server sent no content blocks.
 */
export function resultForModel(result: CallToolResult): { text: string; images: ToolResultImage[] } {
  const parts: string[] = [];
  const images: ToolResultImage[] = [];
  const image = (data: string, mimeType: string, what: string) => {
    if (IMAGE_TYPES.has(mimeType)) images.push({ type: 'image', source: { type: 'base64', media_type: mimeType as ImageType, data } });
    else parts.push(`[${what}: ${mimeType}, ${base64Bytes(data)} bytes, not shown: the API takes images as JPEG, PNG, GIF or WebP]`);
  };
  for (const block of result.content ?? []) {
    switch (block.type) {
      case 'text':
        parts.push(block.text);
        break;
      case 'image':
        image(block.data, block.mimeType, 'image');
        break;
      case 'audio':
        parts.push(`[audio: ${block.mimeType}, ${base64Bytes(block.data)} bytes, not shown: the model takes no audio]`);
        break;
      case 'resource_link':
        parts.push(
          `[resource link: ${block.name} ${block.uri}${block.mimeType ? ` (${block.mimeType})` : ''}${block.description ? `: ${block.description}` : ''}]`,
        );
        break;
      case 'resource': {
        const resource = block.resource;
        if ('text' in resource && typeof resource.text === 'string') parts.push(`[resource ${resource.uri}]\n${resource.text}`);
        else if ('blob' in resource && typeof resource.blob === 'string')
          image(resource.blob, resource.mimeType ?? 'application/octet-stream', `resource ${resource.uri}`);
        break;
      }
      default:
        parts.push(`[a content block of type ${(block as { type: string }).type}, which orca does not know]`);
    }
  }
  if (parts.length === 0 && images.length === 0 && result.structuredContent !== undefined) {
    parts.push(JSON.stringify(result.structuredContent, null, 2));
  }
  if (parts.length === 0 && images.length === 0) parts.push('(the tool returned no content)');
  return { text: parts.join('\n'), images };
}

function base64Bytes(data: string): number {
  return Math.floor((data.replace(/=+$/, '').length * 3) / 4);
}
