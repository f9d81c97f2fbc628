// Runs first, in its own script element, so it sees what goes wrong later: an exception,
// a rejected promise, a resource or a script the Content-Security-Policy blocked, a
// console.error. Each is counted in the data-page-errors attribute of the html element and listed in #page-errors,
// visible to a reader (the page is incomplete) and to a headless test (chromium
// --dump-dom shows the DOM after the scripts ran).
(function() {
'use strict';
const errors = [];
function record(text) {
  errors.push(String(text));
  document.documentElement.dataset.pageErrors = String(errors.length);
  const box = document.getElementById('page-errors');
  if (box) {
    box.hidden = false;
    box.textContent = 'This page did not render completely:\n' + errors.join('\n');
  }
}
window.addEventListener('error', function(event) {
  const target = event.target;
  if (target && target !== window && target.tagName)
    record('could not load a ' + target.tagName.toLowerCase());
  else
    record((event.message || 'error') + (event.lineno ? ' (line ' + event.lineno + ')' : ''));
}, true);
window.addEventListener('unhandledrejection', function(event) {
  record('unhandled rejection: ' + event.reason);
});
document.addEventListener('securitypolicyviolation', function(event) {
  record(
      'blocked by the page\'s content security policy: ' + event.violatedDirective + ' ' +
      (event.blockedURI || 'inline'));
});
const consoleError = console.error;
console.error = function() {
  record('console.error: ' + Array.prototype.map.call(arguments, String).join(' '));
  consoleError.apply(console, arguments);
};
window.gpubenchRecordError = record;
// A page whose scripts never finish (a syntax error in the main script) still says so.
window.addEventListener('load', function() {
  if (document.body && document.body.dataset.ready !== '1') record('the page script did not finish');
});
})();
