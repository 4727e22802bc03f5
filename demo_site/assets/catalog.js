/* The catalog (/): product grid, search, newsletter, and the catalog's WebMCP tools. */
(function () {
  "use strict";
  var S = window.Shop;
  var grid = document.getElementById("grid");
  var title = document.getElementById("results-title");
  var searchForm = document.getElementById("search-form");
  var newsletter = document.getElementById("newsletter-form");

  function search(q, category) {
    var words = String(q || "").toLowerCase().split(/\s+/).filter(Boolean);
    return S.PRODUCTS.filter(function (p) {
      if (category && category !== "all" && p.category !== category) return false;
      var text = (p.name + " " + p.blurb + " " + p.description + " " + S.CATEGORIES[p.category]).toLowerCase();
      return words.every(function (w) {
        return text.indexOf(w) >= 0 || text.indexOf(w.replace(/s$/, "")) >= 0;
      });
    });
  }

  function card(p) {
    var sold = S.stockOf(p) === 0;
    return (
      '<a class="card" href="/product?id=' + p.id + '" data-product="' + p.id + '">' +
      '<span class="art">' + S.ART[p.id] + "</span>" +
      '<span class="body"><span class="name">' + S.esc(p.name) + "</span>" +
      '<span class="muted small">' + S.esc(p.blurb) + "</span>" +
      '<span class="meta"><span class="price">' + S.money(p.price) + "</span>" +
      (sold ? '<span class="badge sold">Sold out</span>'
            : '<span class="stars" title="' + p.rating + ' out of 5">' + S.stars(p.rating) + "</span>") +
      "</span></span></a>"
    );
  }

  function show(list, heading) {
    title.textContent = heading;
    grid.innerHTML = list.length
      ? list.map(card).join("")
      : '<p class="empty">Nothing matched. Try another word, or browse all gear.</p>';
  }

  function setChip(category) {
    var chips = document.querySelectorAll(".chip");
    for (var i = 0; i < chips.length; i++) {
      chips[i].setAttribute("aria-pressed", String(chips[i].dataset.category === category));
    }
  }

  function headingFor(q, category) {
    var where = category && category !== "all" ? S.CATEGORIES[category] : "All gear";
    return q ? "Results for \u201c" + q + "\u201d" + (category && category !== "all" ? " in " + where : "") : where;
  }

  // First paint: ?q= and ?category= from the address, if any.
  var initialQ = S.param("q") || "";
  var initialCategory = S.param("category") || "all";
  if (!S.CATEGORIES[initialCategory]) initialCategory = "all";
  document.getElementById("q").value = initialQ;
  document.getElementById("category").value = initialCategory;
  setChip(initialCategory);
  show(search(initialQ, initialCategory), headingFor(initialQ, initialCategory));

  document.getElementById("chips").addEventListener("click", function (e) {
    var chip = e.target.closest(".chip");
    if (!chip) return;
    var category = chip.dataset.category;
    setChip(category);
    document.getElementById("category").value = category;
    document.getElementById("q").value = "";
    show(search("", category), headingFor("", category));
    history.replaceState(null, "", category === "all" ? "/" : "/?category=" + category);
  });

  // The search form: a person's submit filters the grid; an agent's submit is answered with the
  // results through respondWith (the page stays where it is).
  searchForm.addEventListener("submit", function (e) {
    e.preventDefault();
    var q = searchForm.q.value.trim();
    var category = searchForm.category.value;
    var found = search(q, category);
    setChip(category);
    show(found, headingFor(q, category));
    if (e.agentInvoked && typeof e.respondWith === "function") {
      e.respondWith(
        Promise.resolve({
          query: q,
          category: category,
          count: found.length,
          results: found.map(S.productInfo),
        })
      );
    } else {
      history.replaceState(null, "", "/?q=" + encodeURIComponent(q) + (category !== "all" ? "&category=" + category : ""));
    }
  });

  // The newsletter form has no toolautosubmit: an agent fills it in and the person presses Subscribe.
  newsletter.addEventListener("submit", function (e) {
    e.preventDefault();
    var email = newsletter.email.value.trim();
    var frequency = newsletter.frequency.value;
    document.getElementById("nl-status").textContent = "Thanks! The Tide Report is on its way to " + email + ".";
    if (typeof e.respondWith === "function" && e.agentInvoked) {
      e.respondWith(Promise.resolve({ subscribed: true, email: email, frequency: frequency }));
    }
  });
  newsletter.addEventListener("reset", function () {
    document.getElementById("nl-status").textContent = "";
  });

  // ---------------------------------------------------------------- imperative tools
  var tools = [
    {
      name: "get_product",
      title: "Product details",
      description: "Get one product's details: price, sizes, stock by size, rating and a summary.",
      inputSchema: {
        type: "object",
        properties: {
          product_id: { type: "string", enum: S.productIds, description: "The product's id, as search_products returns it." },
        },
        required: ["product_id"],
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
      execute: function (input) {
        var p = S.product(input.product_id);
        if (!p) throw S.WebToolError("invalid_input", "No product " + JSON.stringify(input.product_id) + ". Use search_products to find ids.");
        var info = S.productInfo(p);
        info.description = p.description;
        return info;
      },
    },
    {
      name: "add_to_cart",
      title: "Add to cart",
      description:
        "Add a product to the cart. Products with sizes (tees, jackets, socks) need a size; if the person has not said which, the tool asks you to ask them.",
      inputSchema: {
        type: "object",
        properties: {
          product_id: { type: "string", enum: S.productIds, description: "The product's id." },
          size: { type: "string", enum: ["S", "M", "L"], description: "The size, for products that come in sizes." },
          quantity: { type: "integer", minimum: 1, maximum: 10, default: 1, description: "How many (1 to 10)." },
        },
        required: ["product_id"],
        additionalProperties: false,
      },
      execute: function (input) {
        var p = S.product(input.product_id);
        if (!p) throw S.WebToolError("invalid_input", "No product " + JSON.stringify(input.product_id) + ".");
        var result = S.addToCart(p, input.size, input.quantity);
        if (typeof result !== "string") S.toast("Added " + p.name + " to the cart");
        return result;
      },
    },
    S.viewCartTool(),
    S.goToCheckoutTool(),
  ];
  // A one-shot tool: the welcome coupon is given once, so the tool takes itself away (aborts its
  // own registration) and then answers with the code. The answer is the result: a retry would
  // find no tool, and claim nothing twice.
  var once = new AbortController();
  var oneShot = [
    {
      name: "claim_welcome_coupon",
      title: "Claim the welcome coupon",
      description: "Claim the one-time welcome coupon: answers with a code for 10% off everything. It can be claimed once; the tool goes away when it is claimed.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      execute: function () {
        once.abort();
        S.toast("Welcome! Your coupon is TIDE10");
        return { coupon: "TIDE10", applies: S.COUPONS.TIDE10.label, claimed: true };
      },
    },
  ];
  S.markReady(Promise.all([S.registerTools(tools), S.registerTools(oneShot, once.signal)]));
})();
