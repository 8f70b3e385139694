// Render the math that pymdownx.arithmatex (generic mode) leaves in the page,
// with the KaTeX that the site serves itself (scripts/fetch_doc_assets.sh).
// `document$` is Material's observable of page loads (instant navigation too).
document$.subscribe(({ body }) => {
  renderMathInElement(body, {
    delimiters: [
      { left: "\\(", right: "\\)", display: false },
      { left: "\\[", right: "\\]", display: true },
    ],
    throwOnError: false,
  });
});
