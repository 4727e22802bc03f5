// The tools of the @mcp-b/global pages, registered as pages of each version do: through
// navigator.modelContext where the polyfill puts its own there (1.x), else document.modelContext.
const mc = navigator.modelContext || document.modelContext;
window.calls = { slow: 0, cancelled: 0 };
window.toolsReady = Promise.all([
  mc.registerTool({
    name: "echo",
    description: "Echo the text back.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: true, untrustedContentHint: true },
    execute: (input) => ({ echo: input.text }),
  }),
  mc.registerTool({
    name: "boom",
    description: "Always fails.",
    execute: () => {
      throw new Error("the kettle is broken");
    },
  }),
  mc.registerTool({
    name: "slow",
    description: "Never answers.",
    execute: (_input, client) => {
      window.calls.slow += 1;
      return new Promise(() => {});
    },
  }),
  mc.registerTool({
    name: "navigates",
    description: "Goes to another page and never answers.",
    execute: () => {
      location.href = "other.html";
      return new Promise(() => {});
    },
  }),
]).then(() => true);
