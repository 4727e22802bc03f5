/* The support chat widget (/support-widget), embedded cross-site (from localhost:PORT). Its tool,
 * ask_support, is registered by the iframe's document, not by the page around it. */
(function () {
  "use strict";
  var S = window.Shop;
  var messages = document.getElementById("messages");
  var conversation = "CHAT-" + Math.floor(1000 + Math.random() * 9000);

  var ANSWERS = [
    { words: ["ship", "deliver", "arriv", "post"], text: "Standard shipping takes 3 to 5 days and is free over $75; express arrives the next day for $18." },
    { words: ["return", "refund", "exchange", "send back"], text: "Returns are free within 30 days. Start one at /returns and we email a prepaid label." },
    { words: ["size", "fit", "small", "large"], text: "Our tees run true to size with a relaxed fit. Socks: S fits US 4 to 6.5, M 7 to 9.5, L 10 to 13." },
    { words: ["jacket", "storm", "stock", "back in"], text: "The Storm Shell Jacket is sold out; the next batch arrives in spring. I can note your email for a heads-up." },
    { words: ["order", "track", "where"], text: "You can follow any order at /track with its number (TW- and five digits)." },
  ];
  function answerFor(question, orderId) {
    var q = question.toLowerCase();
    for (var i = 0; i < ANSWERS.length; i++) {
      for (var j = 0; j < ANSWERS[i].words.length; j++) {
        if (q.indexOf(ANSWERS[i].words[j]) >= 0) {
          return ANSWERS[i].text + (orderId ? " I've attached order " + orderId + " to this chat." : "");
        }
      }
    }
    return "Thanks for asking! A person from the shop will reply here within the hour (we're open 9 to 6, Eastern).";
  }
  function say(text, who) {
    var div = document.createElement("div");
    div.className = "msg " + who;
    div.textContent = text;
    messages.appendChild(div);
    messages.scrollTop = messages.scrollHeight;
  }

  document.getElementById("composer").addEventListener("submit", function (e) {
    e.preventDefault();
    var input = document.getElementById("question");
    var q = input.value.trim();
    if (!q) return;
    input.value = "";
    say(q, "me");
    var a = answerFor(q);
    setTimeout(function () { say(a, "them"); }, 400);
  });

  S.markReady(
    S.registerTools([
      {
        name: "ask_support",
        title: "Ask shop support",
        description:
          "Send a question to Tidewater's support chat (shipping, returns, sizes, stock, orders) and get the answer. The message shows in the chat on the page.",
        inputSchema: {
          type: "object",
          properties: {
            question: { type: "string", minLength: 3, maxLength: 500, description: "The question, in plain words." },
            order_id: { type: "string", pattern: "^TW-[0-9]{5}$", description: "An order number the question is about (optional)." },
          },
          required: ["question"],
          additionalProperties: false,
        },
        execute: function (input) {
          say(input.question, "me");
          var answer = answerFor(input.question, input.order_id);
          say(answer, "them");
          return { answer: answer, from: "Marina at Tidewater", conversation_id: conversation };
        },
      },
    ])
  );
})();
