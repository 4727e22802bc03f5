/* Checkout (/checkout): the only page with place_order. */
(function () {
  "use strict";
  var S = window.Shop;
  S.applySharedCart();
  var form = document.getElementById("checkout-form");

  function shippingMethod() {
    return form.querySelector('input[name="shipping"]:checked').value;
  }
  function render() {
    var s = S.cart.summary(shippingMethod());
    document.getElementById("summary-lines").innerHTML = s.items.length
      ? s.items.map(function (it) {
          return '<div class="line"><span>' + it.quantity + " &times; " + S.esc(it.name) +
            (it.size ? " (" + it.size + ")" : "") + "</span><span>" + S.money(it.line_total * 100) + "</span></div>";
        }).join("")
      : '<p class="muted">Your cart is empty. <a href="/">Keep shopping</a>.</p>';
    document.getElementById("totals").innerHTML =
      "<tr><td>Subtotal</td><td>" + S.money(s.subtotal * 100) + "</td></tr>" +
      (s.discount ? "<tr><td>Discount (" + S.esc(s.coupon) + ")</td><td>−" + S.money(s.discount * 100) + "</td></tr>" : "") +
      "<tr><td>Shipping</td><td>" + (s.shipping ? S.money(s.shipping * 100) : "Free") + "</td></tr>" +
      '<tr class="total"><td>Total</td><td>' + S.money(s.total * 100) + "</td></tr>";
    document.getElementById("coupon-status").textContent = s.coupon ? S.COUPONS[s.coupon].label + " applied." : "";
  }
  render();
  window.addEventListener("cartchange", render);
  form.addEventListener("change", render);

  // Places the order for what is in the cart; throws what an agent or a person should read.
  function placeOrder(email, shipping, payment) {
    var lines = S.cart.lines();
    if (lines.length === 0) throw new Error("Your cart is empty. Add something before placing an order.");
    if (payment === "gift_card") {
      throw S.WebToolError("needs_user", "Gift cards are entered by the buyer at checkout, never by an assistant. Ask the buyer to enter the gift card number, or to pay with the saved card.");
    }
    lines.forEach(function (l) {
      var p = S.product(l.id);
      if (S.stockOf(p, l.size) < l.qty) {
        throw new Error("Out of stock: " + p.name + (l.size ? " in size " + l.size : "") +
          " is sold out. Remove it from the cart, or choose another size, and try again.");
      }
    });
    var order = {
      id: S.newOrderId(),
      placed: new Date().toISOString(),
      email: email,
      name: "Sam Rivera",
      address: "12 Quay Street, Portland, ME 04101",
      lines: lines,
      shipping: shipping,
      payment: payment,
      coupon: S.cart.coupon(),
      status: "confirmed",
    };
    S.saveOrder(order);
    var summary = S.cart.summary(shipping, lines, order.coupon);
    S.cart.clear();
    S.cart.setCoupon(null);
    return { order: order, summary: summary };
  }

  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var err = document.getElementById("form-error");
    if (!form.email.checkValidity()) {
      err.textContent = "Please enter the email address for the receipt.";
      return;
    }
    try {
      var placed = placeOrder(form.email.value.trim(), shippingMethod(), form.querySelector('input[name="payment"]:checked').value);
      window.location.href = "/order?id=" + placed.order.id;
    } catch (ex) {
      err.textContent = ex.code === "needs_user" ? "Please enter your gift card number at the till, or pay with the saved card." : ex.message;
    }
  });

  function applyCoupon(code) {
    code = String(code || "").trim().toUpperCase();
    if (!S.COUPONS[code]) {
      throw S.WebToolError("invalid_input", "There is no coupon " + JSON.stringify(code) + ". Check the code with the buyer (codes look like TIDE10).");
    }
    S.cart.setCoupon(code);
    return { coupon: code, applied: S.COUPONS[code].label, cart: S.cart.summary(shippingMethod()) };
  }
  document.getElementById("coupon-form").addEventListener("submit", function (e) {
    e.preventDefault();
    try {
      applyCoupon(document.getElementById("coupon").value);
    } catch (ex) {
      document.getElementById("coupon-status").textContent = "That code doesn't exist.";
    }
  });

  // ---------------------------------------------------------------- imperative tools
  var paymentStatus = document.getElementById("payment-status");
  var dialog = document.getElementById("approval");
  var tools = [
    S.viewCartTool(),
    {
      name: "apply_coupon",
      title: "Apply a coupon",
      description: "Apply a coupon code to the order. Codes are 4 to 12 capital letters and digits, e.g. TIDE10.",
      inputSchema: {
        type: "object",
        properties: { code: { type: "string", pattern: "^[A-Z0-9]{4,12}$", description: "The coupon code, e.g. TIDE10." } },
        required: ["code"],
        additionalProperties: false,
      },
      execute: function (input) {
        var result = applyCoupon(input.code);
        render();
        return result;
      },
    },
    {
      name: "place_order",
      title: "Place the order",
      description:
        "Place the order for everything in the cart, shipped to the buyer's saved address. This charges the buyer. Only on /checkout.",
      inputSchema: {
        type: "object",
        properties: {
          email: {
            type: "string", format: "email", pattern: "^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$", maxLength: 254,
            description: "Where to send the receipt.",
          },
          shipping: { type: "string", enum: ["standard", "express"], description: "standard (3 to 5 days, $6, free over $75) or express (next day, $18)." },
          payment: { type: "string", enum: ["saved_card", "gift_card"], description: "saved_card (Visa ending 4242) or gift_card (the buyer enters it)." },
        },
        required: ["email", "shipping", "payment"],
        additionalProperties: false,
      },
      annotations: { consequentialHint: true },
      execute: function (input) {
        form.email.value = input.email;
        form.querySelector('input[name="shipping"][value="' + input.shipping + '"]').checked = true;
        var placed = placeOrder(input.email, input.shipping, input.payment);
        var url = "/order?id=" + placed.order.id;
        var box = document.getElementById("placed");
        box.innerHTML = "Order <strong>" + placed.order.id + "</strong> is placed. <a href=\"" + url + "\">View the confirmation</a>.";
        box.classList.remove("hidden");
        return {
          order_id: placed.order.id,
          status: "confirmed",
          email: input.email,
          shipping: input.shipping,
          total: placed.summary.total,
          currency: "USD",
          items: placed.summary.items,
          confirmation_url: url,
        };
      },
    },
    {
      name: "check_payment_status",
      title: "Check the payment",
      description:
        "Ask the bank whether the buyer's card payment has cleared. The bank can be slow; the call waits until it answers.",
      inputSchema: { type: "object", properties: {}, additionalProperties: false },
      annotations: { readOnlyHint: true },
      execute: function (input, client) {
        if (new URLSearchParams(location.search).get("bank") !== "slow") {
          paymentStatus.textContent = "The bank cleared the payment.";
          return Promise.resolve({ status: "cleared", checked_at: new Date().toISOString() });
        }
        // /checkout?bank=slow: the bank is down and never answers, so the call only ends when
        // it is cancelled (the timeout scenario).
        var dots = 0;
        paymentStatus.textContent = "Checking the payment with the bank…";
        var timer = setInterval(function () {
          dots = (dots + 1) % 4;
          paymentStatus.textContent = "Checking the payment with the bank" + ".".repeat(dots + 1);
        }, 700);
        return S.untilCancelled("check_payment_status", client, function () {
          clearInterval(timer);
          paymentStatus.textContent = "Payment check stopped.";
        });
      },
    },
    {
      name: "request_payment_approval",
      title: "Ask the buyer to approve",
      description:
        "Show the buyer a dialog asking them to approve the payment before the order is placed. If the buyer declines, the call is cancelled. (In this demo the buyer always declines.)",
      inputSchema: {
        type: "object",
        properties: { message: { type: "string", maxLength: 200, description: "A short note shown to the buyer." } },
        additionalProperties: false,
      },
      execute: function (input) {
        var total = S.cart.summary(shippingMethod()).total;
        document.getElementById("approval-text").textContent =
          (input.message ? input.message + " " : "") + "Pay " + S.money(total * 100) + " to Tidewater Outfitters?";
        return new Promise(function (resolve, reject) {
          function finish(approved) {
            dialog.close();
            if (approved) resolve({ approved: true });
            else reject(S.abortError("The buyer declined the payment."));
          }
          document.getElementById("approval-approve").onclick = function () { finish(true); };
          document.getElementById("approval-decline").onclick = function () { finish(false); };
          if (typeof dialog.showModal === "function") dialog.showModal();
          // The demo buyer says no at once, so the cancelled case is reproducible.
          setTimeout(function () {
            S.toast("The buyer declined the payment.", "warn");
            finish(false);
          }, 0);
        });
      },
    },
  ];
  S.markReady(S.registerTools(tools));
})();
