/* Order tracking (/track?order=TW-12345). The track_order form submits here (GET), so an agent's
 * call is answered by this page's JSON-LD. */
(function () {
  "use strict";
  var S = window.Shop;
  var number = (S.param("order") || "").trim().toUpperCase();
  document.getElementById("order-number").value = number;

  if (number) {
    var order = S.findOrder(number);
    var box = document.getElementById("tracking");
    box.classList.remove("hidden");
    if (!order) {
      document.getElementById("track-badge").textContent = number;
      document.getElementById("track-title").textContent = "We have no order " + number;
      document.getElementById("track-detail").textContent =
        "Check the number in your confirmation email. Orders placed in the last few minutes can take a moment to show up.";
      document.querySelector("#tracking .steps").classList.add("hidden");
      document.getElementById("track-order-link").classList.add("hidden");
      S.setJsonLd({
        "@context": "https://schema.org",
        "@type": "Order",
        orderNumber: number,
        orderStatus: "https://schema.org/OrderProblem",
        description: "No order " + number + " was found. Check the number in the confirmation email.",
      });
    } else {
      var shipped = order.status === "shipped" || order.status === "delivered";
      var s = S.cart.summary(order.shipping, order.lines, order.coupon);
      var eta = new Date(new Date(order.placed).getTime() + (order.shipping === "express" ? 1 : 5) * 86400000);
      var etaText = eta.toLocaleDateString("en-US", { weekday: "long", month: "long", day: "numeric" });
      var reached = { confirmed: 1, shipped: 3, delivered: 4 }[order.status] || 1;
      var steps = document.querySelectorAll("#tracking .step");
      for (var i = 0; i < steps.length; i++) steps[i].classList.toggle("done", i < reached);
      document.getElementById("track-badge").textContent = "Order " + order.id;
      document.getElementById("track-title").textContent = shipped ? "On its way with Casco Bay Parcel" : "Being packed in Portland";
      document.getElementById("track-detail").textContent =
        (shipped ? "Tracking number CBP-" + order.id.slice(3) + "-ME. " : "It ships within one working day. ") + "Expected by " + etaText + ".";
      document.getElementById("track-items").textContent = s.items
        .map(function (it) { return it.quantity + " × " + it.name + (it.size ? " (" + it.size + ")" : ""); })
        .join(" · ");
      document.getElementById("track-order-link").href = "/order?id=" + order.id;
      S.setJsonLd({
        "@context": "https://schema.org",
        "@type": "ParcelDelivery",
        trackingNumber: shipped ? "CBP-" + order.id.slice(3) + "-ME" : null,
        carrier: { "@type": "Organization", name: "Casco Bay Parcel" },
        deliveryStatus: { "@type": "DeliveryEvent", name: shipped ? "In transit" : "Being packed" },
        expectedArrivalUntil: eta.toISOString().slice(0, 10),
        deliveryAddress: order.address,
        itemShipped: s.items.map(function (it) {
          return { "@type": "Product", name: it.name, sku: it.product_id + (it.size ? "-" + it.size : "") };
        }),
        partOfOrder: {
          "@type": "Order",
          orderNumber: order.id,
          orderStatus: shipped ? "https://schema.org/OrderInTransit" : "https://schema.org/OrderProcessing",
          url: window.location.origin + "/order?id=" + order.id,
        },
      });
    }
  }
  // The book_pickup form answers in place, through respondWith when an agent submits it.
  var pickup = document.getElementById("pickup-form");
  pickup.addEventListener("submit", function (event) {
    event.preventDefault();
    var booking = { order: pickup.elements.order.value.toUpperCase(), day: pickup.elements.day.value, store: "12 Quay Street, Portland" };
    document.getElementById("pickup-status").textContent = "Booked: collect " + booking.order + " on " + booking.day + ".";
    if (event.agentInvoked && event.respondWith) event.respondWith(Promise.resolve({ pickup: booking }));
  });
  // No imperative tools here: the page's tools are the declarative track_order and book_pickup forms.
  S.markReady(Promise.resolve());
})();
