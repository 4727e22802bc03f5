// The tools of the polyfilled test pages, registered through whatever document.modelContext is.
// Both registrations start at once, while the page parses (the polyfills' registerTool() settles
// a task later): the tools are there by the load event.
const mc = document.modelContext;
window.toolsReady = Promise.all([
  mc.registerTool({
    name: "echo",
    description: "Echo the text back.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: true },
    execute: (input) => ({ echo: input.text }),
  }),
  mc.registerTool({
    name: "boom",
    description: "Always fails.",
    execute: () => {
      throw new Error("the kettle is broken");
    },
  }),
]).then(() => true);
