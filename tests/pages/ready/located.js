// Registers one tool; its registerTool call is on line 3, column 30.
const context = document.modelContext;
const registration = context.registerTool({
  name: "get_stock",
  description: "Stock.",
  inputSchema: { type: "object", properties: {} },
  annotations: { readOnlyHint: true },
  execute: async () => ({ inStock: 3 }),
});
