/* Order confirmation (/order?id=TW-12345): the order, on screen and as schema.org JSON-LD. */
(function () {
  "use strict";
  var S = window.Shop;
  var id = S.param("id");
  var order = id ? S.findOrder(id) : S.orders().slice(-1)[0] || S.SAMPLE_ORDER;
  if (!order) {
    document.getElementById("order-missing").classList.remove("hidden");
    S.markReady(S.registerTools([]));
    return;
  }
  S.setJsonLd(S.orderJsonLd(order));

  var s = S.cart.summary(order.shipping, order.lines, order.coupon);
  var shipped = order.status === "shipped" || order.status === "delivered";
  document.title = "Order " + order.id + " · Tidewater Outfitters";
  document.getElementById("order-badge").textContent = "Order " + order.id;
  document.getElementById("order-title").textContent = shipped ? "Your order is on its way" : "Thank you, your order is in";
  document.getElementById("order-intro").textContent =
    "Placed " + new Date(order.placed).toLocaleDateString("en-US", { month: "long", day: "numeric", year: "numeric" }) +
    ". A receipt went to " + order.email + ".";
  var reached = { confirmed: 1, shipped: 3, delivered: 4 }[order.status] || 1;
  var steps = document.querySelectorAll(".step");
  for (var i = 0; i < steps.length; i++) steps[i].classList.toggle("done", i < reached);
  document.getElementById("order-lines").innerHTML = s.items
    .map(function (it) {
      return '<div class="line"><span>' + it.quantity + " &times; " + S.esc(it.name) + (it.size ? " (" + it.size + ")" : "") +
        "</span><span>" + S.money(it.line_total * 100) + "</span></div>";
    })
    .join("");
  document.getElementById("order-totals").innerHTML =
    "<tr><td>Subtotal</td><td>" + S.money(s.subtotal * 100) + "</td></tr>" +
    (s.discount ? "<tr><td>Discount</td><td>−" + S.money(s.discount * 100) + "</td></tr>" : "") +
    "<tr><td>Shipping (" + order.shipping + ")</td><td>" + (s.shipping ? S.money(s.shipping * 100) : "Free") + "</td></tr>" +
    '<tr class="total"><td>Total</td><td>' + S.money(s.total * 100) + "</td></tr>";
  document.getElementById("order-address").textContent = order.name + ", " + order.address;
  document.getElementById("track-link").href = "/track?order=" + order.id;
  document.getElementById("return-link").href = "/returns?order=" + order.id;
  document.getElementById("order").classList.remove("hidden");

  S.markReady(
    S.registerTools([
      {
        name: "get_order",
        title: "This order",
        description: "Get the order shown on this page: number, status, items, totals and delivery address.",
        inputSchema: { type: "object", properties: {}, additionalProperties: false },
        annotations: { readOnlyHint: true },
        execute: function () {
          return {
            order_id: order.id,
            status: order.status,
            placed: order.placed,
            email: order.email,
            ship_to: order.name + ", " + order.address,
            shipping: order.shipping,
            items: s.items,
            total: s.total,
            currency: "USD",
            track_url: "/track?order=" + order.id,
          };
        },
      },
    ])
  );
})();
