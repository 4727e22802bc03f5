(bindingName, quiet, skipNative) => {
  // webmcp-harness in-page agent: reaches a frame's tools through its own script API.
  //
  // Evaluated as `(source)(bindingName, quiet, skipNative)` in every frame: as an init script (before the page's
  // own scripts) and in frames that already exist when the harness attaches. Idempotent: the first
  // run in a document creates `window.__webmcpHarness`; later runs only add a watcher. Returns the
  // document's token (a random id, new with every document, so the harness can tell a cross-document
  // navigation from a same-document one).
  "use strict";
  // The page's own scripts may replace JSON.stringify/parse: keep the ones this first run found
  // (as an init script, before any page script), or, attached later to a page that replaced
  // them, a fresh realm's (a hidden about:blank frame, removed at once), so a sabotaged JSON
  // can't stall a call.
  const pristineJSON = () => {
    const native = (fn) => {
      try {
        return typeof fn === "function" && Function.prototype.toString.call(fn).includes("[native code]");
      } catch {
        return false;
      }
    };
    if (native(JSON.stringify) && native(JSON.parse)) return JSON;
    try {
      const frame = document.createElement("iframe");
      frame.style.display = "none";
      document.documentElement.appendChild(frame);
      const fresh = frame.contentWindow.JSON;
      frame.remove();
      return fresh;
    } catch {
      return JSON;
    }
  };
  const { stringify: jsonStringify, parse: jsonParse } = pristineJSON();
  const KEY = "__webmcpHarness";
  let h = window[KEY];
  if (!h || h.version !== 1) {
    const randomId = () => {
      try {
        return crypto.randomUUID();
      } catch {
        return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2)}`;
      }
    };
    const safe = (get) => {
      try {
        return get();
      } catch {
        return undefined;
      }
    };
    // A bound function prints as "[native code]" too: @mcp-b/global 1.x binds its methods.
    const isNativeFunction = (fn) =>
      typeof fn === "function" &&
      safe(() => String(fn.name).startsWith("bound ")) === false &&
      safe(() => Function.prototype.toString.call(fn).includes("[native code]")) === true;
    const callable = (obj, name) => !!obj && typeof safe(() => obj[name]) === "function";

    // The script objects that hold this document's tools ("surfaces"), in the order a tool's name
    // is looked up: document.modelContext (native, or a polyfill's object), navigator.modelContext
    // when it is another object (@mcp-b/global 1.x puts its own there even beside native WebMCP),
    // a navigator.modelContextTesting shim, and last a document.modelContext that cannot execute. A name is listed once, from the first surface
    // that has it. `native` marks surfaces whose tools live in Chromium's own registry (the
    // DevTools protocol sees them too).
    const surfaces = () => {
      const out = [];
      const mc = safe(() => document.modelContext);
      const nav = safe(() => navigator.modelContext);
      const testing = safe(() => navigator.modelContextTesting);
      let listOnly = null;
      if (mc && callable(mc, "getTools")) {
        const implementation = implementationOf(mc);
        const entry = {
          kind: callable(mc, "executeTool") ? "modelContext" : "modelContext-list-only",
          name: "document.modelContext",
          api: mc,
          implementation,
          native: implementation === "native" || implementation === "@mcp-b/global+native",
        };
        if (entry.kind === "modelContext") out.push(entry);
        else listOnly = entry; // last: a surface that can call a tool comes first
      }
      if (nav && nav !== mc && callable(nav, "listTools") && callable(nav, "executeTool")) {
        out.push({
          kind: "navigatorModelContext",
          name: "navigator.modelContext",
          api: nav,
          implementation: callable(nav, "backfillTools") ? "@mcp-b/global" : "script",
          native: isNativeFunction(safe(() => nav.executeTool)),
        });
      }
      if (callable(testing, "listTools") && callable(testing, "executeTool")) {
        out.push({
          kind: "modelContextTesting",
          name: "navigator.modelContextTesting",
          api: testing,
          implementation: "modelContextTesting",
          native: isNativeFunction(safe(() => testing.listTools)),
        });
      }
      if (listOnly) out.push(listOnly);
      return out;
    };
    // The first surface (what older harness versions called "the" surface).
    const surface = () =>
      surfaces()[0] || {
        kind: null,
        api: null,
        implementation: safe(() => document.modelContext) ? "script" : null,
      };
    const implementationOf = (mc) => {
      if (safe(() => mc.__isBrowserMcpServer) === true) {
        const under = safe(() => mc.native);
        return under && isNativeFunction(safe(() => under.executeTool))
          ? "@mcp-b/global+native"
          : "@mcp-b/global";
      }
      if (safe(() => mc.__isWebMCPPolyfill) === true) return "@mcp-b/webmcp-polyfill";
      if (isNativeFunction(safe(() => mc.getTools))) return "native";
      return "script";
    };
    // Native executeTool (Chromium 156) takes the input as an object; the polyfills (and the
    // older Chromium they copy) take a JSON string.
    const wantsObjectInput = (s) =>
      s.kind === "modelContext" &&
      (s.implementation === "native" || s.implementation === "@mcp-b/global+native");
    // What the page knows about its WebMCP, for the harness's probe (nothing is changed).
    const describePage = () => {
      const getter = safe(
        () => Object.getOwnPropertyDescriptor(Document.prototype, "modelContext")?.get,
      );
      const policy = safe(() => document.featurePolicy);
      return {
        url: String(location.href),
        secure: !!window.isSecureContext,
        native: isNativeFunction(getter),
        // The frame's permissions policy turns WebMCP's `tools` feature off.
        blocked: !!(
          policy &&
          safe(() => policy.features().includes("tools") && !policy.allowsFeature("tools"))
        ),
        surfaces: surfaces().map((s) => ({
          name: s.name,
          implementation: s.implementation,
          native: s.native,
          callable: s.kind !== "modelContext-list-only",
        })),
      };
    };

    const declarativeForm = (name) => {
      const form = safe(() =>
        document.querySelector(`form[toolname="${CSS.escape(name)}"][tooldescription]`),
      );
      return form || null;
    };
    const parseSchema = (schema) => {
      if (typeof schema !== "string") return schema === undefined ? null : schema;
      try {
        return jsonParse(schema);
      } catch {
        return null;
      }
    };
    // Only this document's tools: native getTools() also returns same-origin iframes' tools,
    // and the harness asks every frame separately.
    const ownTools = async (s) => {
      if (s.kind === "modelContextTesting" || s.kind === "navigatorModelContext") {
        return Array.from(await s.api.listTools());
      }
      const all = Array.from(await s.api.getTools());
      return all.filter((t) => {
        const w = safe(() => t.window);
        return w === undefined || w === null || w === window;
      });
    };
    // Richer metadata where the surface has it: @mcp-b/global's listTools() keeps annotations
    // that its getTools() drops (3.x gives none at all).
    const extraAnnotations = async (s) => {
      const byName = new Map();
      if (s.kind !== "modelContext" || !callable(s.api, "listTools") || s.native) return byName;
      try {
        for (const t of Array.from(await s.api.listTools())) {
          const a = safe(() => t.annotations);
          if (a && typeof a === "object") byName.set(String(t.name), a);
        }
      } catch {
        // no richer listing: keep getTools()'s
      }
      return byName;
    };
    const describeTool = (t, s, extra) => {
      const name = String(t.name);
      const form = s.kind === "modelContext" ? declarativeForm(name) : null;
      const own = safe(() => t.annotations);
      const more = extra ? extra.get(name) : undefined;
      const annotations = Object.assign(
        {},
        more && typeof more === "object" ? more : {},
        own && typeof own === "object" ? own : {},
      );
      const text = (v) => (typeof v === "string" ? v : null);
      return {
        name,
        description: safe(() => String(t.description ?? "")) ?? "",
        inputSchema: parseSchema(safe(() => t.inputSchema)),
        annotations:
          annotations && typeof annotations === "object"
            ? jsonParse(jsonStringify(annotations))
            : {},
        title: text(safe(() => t.title)),
        origin: text(safe(() => t.origin)),
        declarative: !!form,
        autosubmit: !!form && form.hasAttribute("toolautosubmit"),
        surface: s.name,
        native: !!s.native,
      };
    };
    // Every tool of this document, each from the first surface that has its name.
    const allTools = async (skipNative) => {
      const seen = new Map();
      const errors = [];
      for (const s of surfaces()) {
        if (skipNative && s.native) continue; // another source (CDP) lists these
        let found;
        try {
          found = await ownTools(s);
        } catch (e) {
          errors.push(`${s.name}: ${describeError(e).description}`);
          continue;
        }
        const extra = await extraAnnotations(s);
        for (const t of found) {
          const name = safe(() => String(t.name));
          if (name !== undefined && !seen.has(name)) seen.set(name, { tool: t, s, extra });
        }
      }
      return { seen, errors };
    };
    const describeError = (e) => {
      if ((e !== null && typeof e === "object") || typeof e === "function") {
        const name = safe(() => e.name);
        const message = safe(() => e.message);
        const code = safe(() => e.code);
        const stack = safe(() => e.stack);
        const ctor = safe(() => e.constructor && e.constructor.name);
        const text = (v) => (v === undefined || v === null ? null : String(v));
        const description =
          typeof stack === "string" && stack
            ? stack
            : name !== undefined
              ? `${text(name)}: ${text(message) ?? ""}`
              : (safe(() => String(e)) ?? "");
        return {
          className: text(ctor),
          description,
          name: text(name),
          code: ["string", "number", "boolean"].includes(typeof code) ? code : null,
          message: text(message) ?? description,
        };
      }
      const value = safe(() => String(e)) ?? "";
      return { className: null, description: value, name: null, code: null, message: value };
    };
    // executeTool answers with a JSON string (native and polyfills alike). Like the DevTools
    // protocol, hand back the parsed value when it parses, else the string.
    const completed = (value) => {
      if (value === null) {
        return {
          status: null,
          protocolError: "executeTool resolved null (the browser's sign of a navigation)",
        };
      }
      let text = value;
      if (typeof value !== "string") {
        if (value === undefined) text = "undefined";
        else {
          try {
            text = jsonStringify(value);
          } catch (e) {
            const exception = describeError(e);
            return { status: "Error", errorText: exception.message, exception };
          }
          if (text === undefined) text = "undefined";
        }
      }
      try {
        return { status: "Completed", output: jsonParse(text) };
      } catch {
        return { status: "Completed", output: text };
      }
    };

    const calls = new Map();
    const watchers = new Map(); // binding name -> WeakSet of the contexts it listens to
    h = {
      version: 1,
      token: randomId(),
      calls,
      surface,
      surfaces,
      async tools(skipNative) {
        const all = surfaces();
        const out = {
          token: h.token,
          surface: all.length ? all[0].kind : null,
          implementation: surface().implementation,
          surfaces: all.map((s) => s.name),
          tools: [],
          error: null,
        };
        if (!all.length) return jsonStringify(out);
        const { seen, errors } = await allTools(!!skipNative);
        out.tools = Array.from(seen.values()).map(({ tool, s, extra }) =>
          describeTool(tool, s, extra),
        );
        if (errors.length && !out.tools.length) out.error = errors.join("; ");
        return jsonStringify(out);
      },
      describe: describePage,
      async start(id, name, inputJson) {
        const refuse = (error) => ({ ok: false, token: h.token, error });
        if (!surfaces().length) return refuse("this document has no document.modelContext");
        // The tool's own surface: the one it is listed from.
        let found;
        try {
          found = (await allTools()).seen.get(name);
        } catch (e) {
          return refuse(describeError(e).description);
        }
        if (!found) return { ...refuse(`Tool not found: ${name}`), notFound: true };
        const { tool, s } = found;
        if (s.kind === "modelContext-list-only") {
          return refuse(
            "document.modelContext has no executeTool() and there is no " +
              "navigator.modelContextTesting: its tools cannot be called from the page",
          );
        }
        const controller = new AbortController();
        const entry = { controller, settled: false, form: null };
        // A declarative form without toolautosubmit is filled, then waits for a person to submit:
        // the implementation says so with a `toolactivated` event (the polyfills fire it on
        // window, native Chromium on document.modelContext).
        let activated = () => {};
        let unwatch = () => {};
        entry.activated = new Promise((resolve) => {
          activated = resolve;
        });
        const form = s.kind === "modelContext" ? declarativeForm(name) : null;
        // A form submitted and not prevented leaves for its action's page: that page's JSON-LD is
        // its answer (as native WebMCP reports it), read by the harness once the frame has landed.
        // Heard on window, after the page's own submit listeners.
        const onSubmit = (event) => {
          if (form && event.target === form && !event.defaultPrevented) entry.submittedAway = true;
        };
        if (form) window.addEventListener("submit", onSubmit);
        if (form && !form.hasAttribute("toolautosubmit")) {
          entry.form = form;
          const onActivated = (event) => {
            if (safe(() => String(event.toolName)) === name) activated(true);
          };
          // @mcp-b/global over native WebMCP: native fires it on the context global wraps.
          const targets = [window];
          for (const api of [s.api, safe(() => s.api.native)]) {
            if (api && api !== window && typeof safe(() => api.addEventListener) === "function") {
              targets.push(api);
            }
          }
          for (const target of targets) target.addEventListener("toolactivated", onActivated);
          unwatch = () => {
            for (const target of targets) target.removeEventListener("toolactivated", onActivated);
          };
        } else {
          activated(false);
        }
        const run = () => {
          if (s.kind === "modelContextTesting") {
            return s.api.executeTool(name, inputJson, { signal: controller.signal });
          }
          if (s.kind === "navigatorModelContext") {
            // By name, the input as an object; it answers an MCP result (not a JSON string).
            return s.api.executeTool(name, jsonParse(inputJson));
          }
          const input = wantsObjectInput(s) ? jsonParse(inputJson) : inputJson;
          return s.api.executeTool(tool, input, { signal: controller.signal });
        };
        // Did the tool go away (or change) during the call? Watch toolchange, and look again
        // after a failure: the polyfills reject at once with "Tool unregistered", before their
        // toolchange event.
        let toolsChanged = false;
        let unregistered = false;
        const present = async () => {
          try {
            return (await ownTools(s)).some((t) => String(t.name) === name);
          } catch {
            return true; // cannot tell: say nothing
          }
        };
        const goneAtChange = []; // at each toolchange during the call: was the tool gone?
        const onToolChange = () => {
          toolsChanged = true;
          goneAtChange.push(present().then((there) => !there));
        };
        const changes =
          s.api && typeof safe(() => s.api.addEventListener) === "function" ? s.api : null;
        if (changes) changes.addEventListener("toolchange", onToolChange);
        const stillThere = async () => {
          try {
            const now = (await ownTools(s)).find((t) => String(t.name) === name);
            return (
              !!now && jsonStringify(describeTool(now, s)) === jsonStringify(describeTool(tool, s))
            );
          } catch {
            return true; // cannot tell: say nothing
          }
        };
        entry.promise = new Promise((resolve, reject) => {
          // Cancelling settles the call even where the implementation ignores the signal.
          controller.signal.addEventListener("abort", () => reject(controller.signal.reason), {
            once: true,
          });
          // The tool runs when the harness starts waiting (`wait`), not during `start`: a tool
          // that navigates must not destroy the round trip that reports the call as started.
          entry.go = () => {
            if (entry.going || controller.signal.aborted) return;
            entry.going = true;
            Promise.resolve()
              .then(run)
              .then(resolve, reject);
          };
        })
          .then(completed, (e) => {
            if (
              controller.signal.aborted &&
              (e === controller.signal.reason || safe(() => e.name) === "AbortError")
            ) {
              return { status: "Canceled", errorText: describeError(e).message };
            }
            const exception = describeError(e);
            // The polyfills' own word that the tool's registration ended during the call (it may
            // be back already, re-registered the same: stillThere() cannot see that).
            unregistered =
              exception.name === "UnknownError" && exception.message === "Tool unregistered";
            return { status: "Error", errorText: exception.message, exception };
          })
          .then(async (report) => {
            if (changes) changes.removeEventListener("toolchange", onToolChange);
            if (report.status !== "Canceled" && (toolsChanged || report.status === "Error")) {
              // Removed, or replaced: gone at some point and back under its name (or changed).
              const wasGone = unregistered || (await Promise.all(goneAtChange)).some(Boolean);
              if (!(await present())) report.toolRemoved = true;
              else if (wasGone || !(await stillThere())) {
                report.toolRemoved = true;
                report.toolReplaced = true;
              }
            }
            // The implementation dropped the call when the tool went: that is no answer.
            if (unregistered) report.unregistered = true;
            // Let a submit dispatched in this turn reach window first (the polyfills answer in it).
            if (form) await new Promise((r) => setTimeout(r, 0));
            window.removeEventListener("submit", onSubmit);
            if (entry.submittedAway && report.status === "Completed") report.submittedAway = true;
            entry.settled = true;
            unwatch();
            activated(false);
            return jsonStringify(report);
          });
        calls.set(id, entry);
        return { ok: true, token: h.token };
      },
      async wait(id) {
        const entry = calls.get(id);
        if (!entry) return null; // not this document's call: the caller's document is gone
        try {
          entry.go();
          return await entry.promise;
        } finally {
          calls.delete(id);
        }
      },
      activated(id) {
        const entry = calls.get(id);
        return entry ? entry.activated : false;
      },
      confirm(id) {
        // Submit the waiting form as a person would: with its first enabled submit button.
        const entry = calls.get(id);
        const form = entry && !entry.settled ? entry.form : null;
        if (!form || !form.isConnected) return false;
        const submitter = Array.from(form.elements).find(
          (el) =>
            !el.matches(":disabled") &&
            ((el instanceof HTMLButtonElement && el.type === "submit") ||
              (el instanceof HTMLInputElement && ["submit", "image"].includes(el.type))),
        );
        if (!submitter) return false;
        // After this round trip has answered: the submit may navigate.
        setTimeout(() => form.requestSubmit(submitter), 0);
        return true;
      },
      cancel(id) {
        const entry = calls.get(id);
        if (!entry) return false;
        entry.controller.abort(new DOMException("Cancelled by webmcp-harness", "AbortError"));
        return true;
      },
      watch(binding, quietly, notNative) {
        let targets = watchers.get(binding);
        if (!targets) {
          targets = new WeakSet();
          watchers.set(binding, targets);
        }
        const notify = (why) => {
          const fn = safe(() => window[binding]);
          if (typeof fn !== "function") return;
          try {
            Promise.resolve(fn({ token: h.token, why })).catch(() => {});
          } catch {
            // The harness went away.
          }
        };
        // Every surface that has toolchange events (navigator.modelContext of @mcp-b/global 1.x
        // has none: the harness finds its changes by listing again).
        const attach = (why, silent) => {
          let fresh = false;
          for (const s of surfaces()) {
            const target = s.api;
            if (!target || typeof safe(() => target.addEventListener) !== "function") continue;
            if (targets.has(target)) continue;
            // Native surfaces' changes come through the DevTools protocol when it is open: a page
            // of 1,000 tools would otherwise call back 1,000 times.
            if (notNative && s.native) continue;
            targets.add(target);
            target.addEventListener("toolchange", () => notify("toolchange"));
            fresh = true;
          }
          if (fresh && !silent) notify(why);
        };
        attach("attached", quietly);
        // A polyfill installs itself while the page loads: look again when scripts have run.
        document.addEventListener("DOMContentLoaded", () => attach("loaded", false), true);
        window.addEventListener("load", () => attach("loaded", false), true);
        document.addEventListener(
          "load",
          (event) => {
            if (event.target instanceof HTMLScriptElement) attach("script", false);
          },
          true,
        );
      },
    };
    Object.defineProperty(window, KEY, { value: h, configurable: true, enumerable: false });
  }
  if (bindingName && !h.watching?.has(bindingName)) {
    h.watching ??= new Set();
    h.watching.add(bindingName);
    h.watch(bindingName, !!quiet, !!skipNative);
  }
  return h.token;
};
