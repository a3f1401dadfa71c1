// Typeset the formulas marked up by pymdownx.arithmatex (generic mode) with
// the KaTeX shipped in assets/katex/: inline math is \( ... \) in a
// span.arithmatex, display math \[ ... \] in a div.arithmatex.  The side
// menu's entries, which repeat the headings as text, are typeset too (a
// heading with a formula).  Nothing else on the page is scanned, so dollar
// signs in code and prose stay as they are.
document.addEventListener("DOMContentLoaded", function () {
  var options = {
    delimiters: [
      {left: "\\(", right: "\\)", display: false},
      {left: "\\[", right: "\\]", display: true}
    ],
    throwOnError: false
  };
  document.querySelectorAll(".arithmatex").forEach(function (element) {
    renderMathInElement(element, options);
  });
  document.querySelectorAll(".bs-sidebar .nav-link").forEach(function (element) {
    if (element.textContent.indexOf("\\(") !== -1) {
      renderMathInElement(element, options);
    }
  });
});
