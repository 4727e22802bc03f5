/* The cart (/cart). Its tools name the items in the cart in their schemas, so every cart change
 * unregisters them (AbortController) and registers them again with the new item list. */
(function () {
  "use strict";
  var S = window.Shop;
  S.applySharedCart();

  function totalsHtml(s) {
    return (
      "<tr><td>Subtotal</td><td>" + S.money(s.subtotal * 100) + "</td></tr>" +
      (s.discount ? "<tr><td>Discount (" + S.esc(s.coupon) + ")</td><td>−" + S.money(s.discount * 100) + "</td></tr>" : "") +
      "<tr><td>Shipping</td><td>" + (s.shipping ? S.money(s.shipping * 100) : "Free") + "</td></tr>" +
      '<tr class="total"><td>Total</td><td>' + S.money(s.total * 100) + "</td></tr>"
    );
  }

  function render() {
    var lines = S.cart.lines();
    document.getElementById("cart-empty").classList.toggle("hidden", lines.length > 0);
    document.getElementById("cart-table").classList.toggle("hidden", lines.length === 0);
    document.getElementById("checkout-button").classList.toggle("hidden", lines.length === 0);
    document.getElementById("cart-lines").innerHTML = lines
      .map(function (l) {
        var p = S.product(l.id);
        return (
          '<tr data-id="' + l.id + '" data-size="' + (l.size || "") + '">' +
          '<td><a class="thumb" href="/product?id=' + p.id + '">' + S.ART[p.id] + "</a></td>" +
          '<td><a href="/product?id=' + p.id + '"><strong>' + S.esc(p.name) + "</strong></a>" +
          (l.size ? '<div class="small muted">Size ' + l.size + "</div>" : "") +
          '<div class="small muted">' + S.money(p.price) + " each</div></td>" +
          '<td><input class="qty" type="number" min="1" max="10" value="' + l.qty + '" aria-label="Quantity of ' + S.esc(p.name) + '"></td>' +
          '<td style="text-align:right" class="price">' + S.money(p.price * l.qty) + "</td>" +
          '<td><button class="btn ghost small" type="button" data-remove>Remove</button></td></tr>'
        );
      })
      .join("");
    document.getElementById("totals").innerHTML = totalsHtml(S.cart.summary());
  }

  document.getElementById("cart-lines").addEventListener("change", function (e) {
    var row = e.target.closest("tr");
    if (!row || !e.target.classList.contains("qty")) return;
    var qty = Math.max(1, Math.min(10, Math.floor(Number(e.target.value)) || 1));
    S.cart.setQty(row.dataset.id, row.dataset.size || null, qty);
  });
  document.getElementById("cart-lines").addEventListener("click", function (e) {
    if (!e.target.hasAttribute("data-remove")) return;
    var row = e.target.closest("tr");
    S.cart.remove(row.dataset.id, row.dataset.size || null);
  });

  // ---------------------------------------------------------------- tools, rebuilt on every cart change
  function lineSchema(lines) {
    var ids = [];
    lines.forEach(function (l) { if (ids.indexOf(l.id) < 0) ids.push(l.id); });
    return {
      product_id: { type: "string", enum: ids, description: "An item in the cart: " + ids.join(", ") + "." },
      size: { type: "string", enum: ["S", "M", "L"], description: "The item's size, when the cart holds it in several sizes." },
    };
  }
  function findLine(input) {
    var matches = S.cart.lines().filter(function (l) {
      return l.id === input.product_id && (input.size == null || l.size === input.size);
    });
    if (matches.length === 0) {
      throw S.WebToolError("invalid_input", "The cart holds no " + input.product_id + (input.size ? " in size " + input.size : "") + ".");
    }
    if (matches.length > 1) {
      throw S.WebToolError("needs_user", "The cart holds " + input.product_id + " in sizes " +
        matches.map(function (l) { return l.size; }).join(", ") + ". Ask which one.");
    }
    return matches[0];
  }
  function cartTools(lines) {
    var tools = [S.viewCartTool(), S.goToCheckoutTool()];
    if (lines.length === 0) return tools;
    var props = lineSchema(lines);
    tools.push(
      {
        name: "update_quantity",
        title: "Change quantity",
        description: "Set how many of an item the cart holds (1 to 10). To take an item out, use remove_from_cart.",
        inputSchema: {
          type: "object",
          properties: {
            product_id: props.product_id,
            size: props.size,
            quantity: { type: "integer", minimum: 1, maximum: 10, description: "The new quantity (1 to 10)." },
          },
          required: ["product_id", "quantity"],
          additionalProperties: false,
        },
        execute: function (input) {
          var line = findLine(input);
          S.cart.setQty(line.id, line.size, input.quantity); // re-registers the cart tools
          return { updated: { product_id: line.id, size: line.size, quantity: input.quantity }, cart: S.cart.summary() };
        },
      },
      {
        name: "remove_from_cart",
        title: "Remove from cart",
        description: "Take an item out of the cart.",
        inputSchema: {
          type: "object",
          properties: { product_id: props.product_id, size: props.size },
          required: ["product_id"],
          additionalProperties: false,
        },
        execute: function (input) {
          var line = findLine(input);
          S.cart.remove(line.id, line.size); // re-registers the cart tools
          return { removed: { product_id: line.id, size: line.size }, cart: S.cart.summary() };
        },
      }
    );
    return tools;
  }

  var controller = null;
  function registerCartTools() {
    if (controller) controller.abort();
    controller = new AbortController();
    return S.registerTools(cartTools(S.cart.lines()), controller.signal);
  }

  render();
  var ready = registerCartTools();
  window.addEventListener("cartchange", function () {
    render();
    registerCartTools();
  });
  S.markReady(ready);
})();
