/* Returns (/returns): request_return is a declarative form WITHOUT toolautosubmit. An agent fills
 * it in; the call waits until the person presses "Request return", and is answered then. */
(function () {
  "use strict";
  var S = window.Shop;
  var form = document.getElementById("return-form");
  var prefill = S.param("order");
  if (prefill) form.order.value = prefill.toUpperCase();

  var counter = 0;
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    counter += 1;
    var rma = "RMA-" + form.order.value.slice(3) + "-" + counter;
    var item = S.product(form.item.value);
    var answer = {
      return_id: rma,
      order: form.order.value,
      item: form.item.value,
      reason: form.reason.value,
      note: form.note.value || undefined,
      label: "A prepaid return label is on its way to the email on the order.",
    };
    var done = document.getElementById("return-done");
    done.textContent = "Return " + rma + " requested for the " + (item ? item.name : form.item.value) +
      ". A prepaid label is on its way to your email.";
    done.classList.remove("hidden");
    if (typeof e.respondWith === "function" && e.agentInvoked) {
      e.respondWith(Promise.resolve(answer));
    }
  });
  form.addEventListener("reset", function () {
    document.getElementById("return-done").classList.add("hidden");
  });
  S.markReady(Promise.resolve());
})();
