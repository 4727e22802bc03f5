// The tools of the polyfilled test pages: registered through whatever document.modelContext is.
window.toolsReady = (async () => {
  const mc = document.modelContext;
  await mc.registerTool({
    name: "echo",
    description: "Echo the text back.",
    inputSchema: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    annotations: { readOnlyHint: true },
    execute: (input) => ({ echo: input.text }),
  });
  await mc.registerTool({
    name: "boom",
    description: "Always fails.",
    execute: () => {
      throw new Error("the kettle is broken");
    },
  });
  return true;
})();
