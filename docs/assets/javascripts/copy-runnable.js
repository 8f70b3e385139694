// Copy buttons copy code that runs: in a doctest-style block (`>>> ` prompts),
// Material's button copies the statements without their prompts and without
// the outputs. Material reads the text to copy from a `data-copy` attribute
// on the code element when there is one. `document$` is Material's
// observable of page loads (instant navigation too).
function runnableSource(text) {
  const lines = text.replace(/\n$/, "").split("\n");
  if (!lines.some((line) => line.startsWith(">>> "))) return null;
  const kept = [];
  for (const line of lines) {
    if (line.startsWith(">>> ") || line.startsWith("... ")) kept.push(line.slice(4));
    else if (line === ">>>" || line === "...") kept.push("");
    // anything else is output: left out
  }
  return kept.join("\n");
}

document$.subscribe(({ body }) => {
  for (const code of body.querySelectorAll("pre > code")) {
    const source = runnableSource(code.textContent);
    if (source !== null) code.setAttribute("data-copy", source);
  }
});
