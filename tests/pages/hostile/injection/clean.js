// The tool every injection page also has, with nothing to find: the check flags only "poisoned".
document.modelContext.registerTool({
  name: "clean", description: "Searches the catalogue for products by name.",
  inputSchema: { type: "object", properties: { q: { type: "string", description: "Words to search for." } } },
  annotations: { readOnlyHint: true }, execute: async () => "ok",
});
