/*
 * The protocol's requests and symbol kinds the LSP tool sends, imported statically here so that
 * the tool loads them with its first call (lsp.ts imports this module lazily). Not the package
 * itself through import(): it is CommonJS, and a dynamically imported CommonJS package kept only
 * its default export in a bundle of ES module chunks (the CLI's first, docs/architecture.md).
 */
export {
  DefinitionRequest,
  DocumentSymbolRequest,
  HoverRequest,
  ReferencesRequest,
  SymbolKind,
} from 'vscode-languageserver-protocol/node';
