// Progressive enhancement only: every page works without this file. It shows the copy buttons
// next to one-time secrets and links (they stay hidden without JavaScript, where the text itself
// can be selected and copied).
(function () {
  'use strict';
  function copy(input, button) {
    var done = function () {
      var label = button.textContent;
      button.textContent = button.getAttribute('data-copied') || label;
      setTimeout(function () {
        button.textContent = label;
      }, 2000);
    };
    if (navigator.clipboard && window.isSecureContext) {
      navigator.clipboard.writeText(input.value).then(done, function () {
        input.select();
      });
    } else {
      input.focus();
      input.select();
      try {
        if (document.execCommand('copy')) done();
      } catch {
        /* the text stays selected */
      }
    }
  }
  document.addEventListener('DOMContentLoaded', function () {
    var buttons = document.querySelectorAll('button[data-copy]');
    for (var i = 0; i < buttons.length; i++) {
      (function (button) {
        var input = document.getElementById(button.getAttribute('data-copy'));
        if (!input) return;
        button.hidden = false;
        button.addEventListener('click', function () {
          copy(input, button);
        });
      })(buttons[i]);
    }
  });
})();
