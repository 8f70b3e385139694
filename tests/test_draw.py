"""Pictures of graphs: `funcgrad.to_mermaid` and `funcgrad.to_dot`.

Structure (node and edge counts, labels, ids) is checked on graphs small
enough to count by hand; DOT output is checked with a minimal parser of the
DOT grammar used, and rendered with Graphviz when its `dot` binary exists.
"""

from __future__ import annotations

import re
import shutil
import subprocess

import numpy as np
import pytest

import funcgrad as fg
import funcgrad.numpy as fnp

# --- helpers: minimal parsers of the two outputs --------------------------------

_MERMAID_NODE = re.compile(
    r'^  (?P<id>[ncs]\d+)(?P<open>\[|\(\[|\(\()"(?P<label>[^"]*)"(?:\]|\]\)|\)\))$'
)
_MERMAID_EDGE = re.compile(r"^  (?P<src>[ncs]\d+) --> (?P<dst>n\d+)$")
_MERMAID_BACK = re.compile(r'^  (?P<src>[ns]\d+) -\.->\|"(?P<label>[^"]*)"\| (?P<dst>n\d+)$')


def parse_mermaid(text: str) -> dict:
    """Split Mermaid text into nodes, edges and backward edges; fail on any other line."""
    lines = text.splitlines()
    assert re.fullmatch(r"flowchart (LR|RL|TB|TD|BT)", lines[0])
    nodes, edges, back, link_styles = {}, [], [], []
    for line in lines[1:]:
        if m := _MERMAID_NODE.match(line):
            assert m["id"] not in nodes, f"node declared twice: {line}"
            nodes[m["id"]] = (m["open"], m["label"].split("<br/>"))
        elif m := _MERMAID_EDGE.match(line):
            edges.append((m["src"], m["dst"]))
        elif m := _MERMAID_BACK.match(line):
            back.append((m["src"], m["dst"], m["label"].split("<br/>")))
        elif line.startswith("  linkStyle "):
            link_styles = [int(i) for i in line.split()[1].split(",")]
        else:
            assert re.match(r"^  (class [\w,]+ \w+|classDef \w+ \S+)$", line), line
    for src, dst, *_ in edges + back:
        assert src in nodes and dst in nodes, (src, dst)
    # linkStyle counts links in the order they are declared: back edges come last.
    assert link_styles == list(range(len(edges), len(edges) + len(back)))
    return {"nodes": nodes, "edges": edges, "back": back}


_DOT_TOKEN = re.compile(
    r'\s*(?:(?P<id>[A-Za-z_][\w]*|-?\d+(?:\.\d+)?)|(?P<str>"(?:[^"\\]|\\.)*")|(?P<op>->|[{}\[\];,=]))'
)


def _dot_tokens(text: str) -> list[tuple[str, str]]:
    tokens, pos = [], 0
    while pos < len(text):
        if text[pos:].strip() == "":
            break
        m = _DOT_TOKEN.match(text, pos)
        assert m, f"DOT: cannot read {text[pos : pos + 30]!r}"
        kind = m.lastgroup
        tokens.append((kind, m[kind]))
        pos = m.end()
    return tokens


def parse_dot(text: str) -> dict:
    """Parse the subset of DOT that `to_dot` writes: a digraph of node, edge and attribute statements."""
    toks = _dot_tokens(text)
    i = 0

    def take(kind=None, value=None):
        nonlocal i
        k, v = toks[i]
        assert kind is None or k == kind, (toks[i], kind)
        assert value is None or v == value, (toks[i], value)
        i += 1
        return v

    def attrs() -> dict:
        nonlocal i
        out = {}
        take("op", "[")
        while toks[i] != ("op", "]"):
            key = take("id")
            take("op", "=")
            k, v = toks[i]
            assert k in ("id", "str"), toks[i]
            i += 1
            out[key] = v[1:-1].replace('\\"', '"') if k == "str" else v
            if toks[i] == ("op", ","):
                i += 1
        take("op", "]")
        return out

    take("id", "digraph")
    take("id")
    take("op", "{")
    nodes, edges, graph_attrs = {}, [], {}
    while toks[i] != ("op", "}"):
        first = take("id")
        if toks[i] == ("op", "="):
            i += 1
            graph_attrs[first] = take()
        elif toks[i] == ("op", "->"):
            i += 1
            second = take("id")
            edges.append((first, second, attrs() if toks[i] == ("op", "[") else {}))
        elif first in ("node", "edge"):
            attrs()
        else:
            nodes[first] = attrs()
        take("op", ";")
    take("op", "}")
    assert i == len(toks), "text after the closing brace"
    for src, dst, _ in edges:
        assert src in nodes and dst in nodes, (src, dst)
    return {"nodes": nodes, "edges": edges, "graph": graph_attrs}


@pytest.fixture
def graph():
    """y = sum(sin(x) * x + 2.0): 4 primitives on one leaf, one constant, x used twice."""
    x = fg.leaf([0.5, 1.0])
    y = fnp.sum(fnp.sin(x) * x + 2.0)
    return x, y


# --- forward structure -----------------------------------------------------------------


def test_mermaid_forward_structure(graph):
    x, y = graph
    parsed = parse_mermaid(fg.to_mermaid(y, names={x: "x"}))
    nodes, edges = parsed["nodes"], parsed["edges"]
    assert sorted(nodes) == ["c0", "n0", "n1", "n2", "n3", "n4"]  # leaf, sin, mul, add, sum + 2.0
    assert nodes["n0"][1] == ["x: leaf", "(2,) float64"]
    assert [nodes[f"n{i}"][1][0] for i in range(1, 5)] == ["sin", "multiply", "add", "sum"]
    assert nodes["n4"][1][1] == "() float64"
    assert nodes["c0"] == ("([", ["2.0"])
    # x feeds sin and multiply; sin feeds multiply; ...: input -> user, in argument order.
    assert edges == [
        ("n0", "n1"),
        ("n1", "n2"),
        ("n0", "n2"),
        ("n2", "n3"),
        ("c0", "n3"),
        ("n3", "n4"),
    ]
    assert parsed["back"] == []


def test_dot_forward_structure(graph):
    x, y = graph
    parsed = parse_dot(fg.to_dot(y, names={x: "x"}, direction="TB"))
    assert parsed["graph"] == {"rankdir": "TB"}
    assert len(parsed["nodes"]) == 6 and len(parsed["edges"]) == 6
    assert parsed["nodes"]["n0"]["label"] == "x: leaf\\n(2,) float64"
    assert parsed["nodes"]["c0"]["label"] == "2.0"


def test_ids_are_stable_and_follow_evaluation_order(graph):
    _, y = graph
    assert fg.to_mermaid(y) == fg.to_mermaid(y)
    assert fg.to_dot(y) == fg.to_dot(y)
    order = [n.prim.name if n.prim else "leaf" for n in fg.toposort(y)]
    labels = parse_mermaid(fg.to_mermaid(y))["nodes"]
    assert [labels[f"n{i}"][1][0] for i in range(len(order))] == order


def test_several_roots_share_their_common_nodes():
    x = fg.leaf(1.0)
    a, b = fnp.exp(x), fnp.sin(x)
    parsed = parse_mermaid(fg.to_mermaid(a, b))
    assert len(parsed["nodes"]) == 3 and len(parsed["edges"]) == 2


def test_array_constants_show_values_when_tiny_and_shapes_otherwise():
    x = fg.leaf(np.ones(3))
    y = fnp.sum(x * np.array([1.0, 2.0, 3.0]) + np.zeros(3) + np.ones((5, 2, 3)))
    nodes = parse_mermaid(fg.to_mermaid(y))["nodes"]
    consts = [nodes[k][1][0] for k in sorted(nodes) if k.startswith("c")]
    assert consts == ["[1.0, 2.0, 3.0]", "[0.0, 0.0, 0.0]", "const (5, 2, 3) float64"]
    assert parse_mermaid(fg.to_mermaid(y, max_values=0))["nodes"]["c0"][1] == ["const (3,) float64"]


# --- the backward pass -----------------------------------------------------------------


def test_backward_edges_with_every_cotangent(graph):
    x, y = graph
    grads = fg.backward(y, wrt=fg.toposort(y))
    parsed = parse_mermaid(fg.to_mermaid(y, grads=grads))
    back = {(s, d): label for s, d, label in parsed["back"]}
    # One dashed arrow against each forward arrow between nodes, plus the seed.
    assert set(back) == {
        ("n1", "n0"),
        ("n2", "n1"),
        ("n2", "n0"),
        ("n3", "n2"),
        ("n4", "n3"),
        ("s0", "n4"),
    }
    assert back[("s0", "n4")] == ["ct () float64", "1.0"]
    assert back[("n4", "n3")] == ["ct (2,) float64", "[1.0, 1.0]"]
    # sin's output reaches only multiply: the arrow carries its whole cotangent (x = [0.5, 1]).
    assert back[("n2", "n1")] == ["ct (2,) float64", "[0.5, 1.0]"]
    # x gets two parts; the arrows show shapes and the box shows the sum.
    assert back[("n1", "n0")] == back[("n2", "n0")] == ["ct (2,) float64"]
    xv = np.array([0.5, 1.0])
    expected = np.sin(xv) + xv * np.cos(xv)
    total = parsed["nodes"]["n0"][1][2]
    assert total.startswith("Σ ct = [")
    assert [float(v) for v in total[len("Σ ct = [") : -1].split(", ")] == pytest.approx(
        expected, rel=1e-3
    )
    assert parsed["nodes"]["s0"] == ("((", ["seed"])


def test_backward_with_leaf_gradients_only(graph):
    x, y = graph
    parsed = parse_mermaid(fg.to_mermaid(y, grads=fg.backward(y)))
    back = {(s, d): label for s, d, label in parsed["back"]}
    assert len(back) == 6
    # Inner cotangents are unknown: shapes only. The seed's value is unknown too.
    assert back[("n4", "n3")] == ["ct (2,) float64"]
    assert back[("s0", "n4")] == ["ct () float64"]


def test_backward_skips_paths_that_carry_no_gradient():
    x = fg.leaf(2.0)
    c = fg.leaf(3.0)
    y = x * fnp.stop_gradient(fnp.exp(c)) + fnp.sin(c)
    grads = fg.backward(y, wrt=[x])
    parsed = parse_mermaid(fg.to_mermaid(y, grads=grads))
    drawn = {(s, d) for s, d, _ in parsed["back"]}
    ids = {id(n): f"n{i}" for i, n in enumerate(fg.toposort(y))}
    # Only y -> multiply -> x carries a cotangent to x; c's branch has none.
    mul = y.inputs[0]
    assert drawn == {(ids[id(y)], ids[id(mul)]), (ids[id(mul)], ids[id(x)]), ("s0", ids[id(y)])}
    # And the rule of stop_gradient declares no gradient even when c is asked for.
    grads_c = fg.backward(y, wrt=fg.toposort(y))
    stop = mul.inputs[1]
    drawn = {(s, d) for s, d, _ in parse_mermaid(fg.to_mermaid(y, grads=grads_c))["back"]}
    assert (ids[id(stop)], ids[id(stop.inputs[0])]) not in drawn


def test_dot_backward_edges_do_not_constrain_the_layout(graph):
    _, y = graph
    parsed = parse_dot(fg.to_dot(y, grads=fg.backward(y, wrt=fg.toposort(y))))
    dashed = [e for e in parsed["edges"] if e[2].get("style") == "dashed"]
    assert len(dashed) == 6
    assert all(e[2]["constraint"] == "false" for e in dashed)
    assert ("s0", "n4") in [(s, d) for s, d, _ in dashed]


def test_gradients_that_are_nodes(graph):
    x, y = graph
    grads = fg.backward(y, wrt=[x], create_graph=True)
    assert type(grads[x]) is fg.Node
    parsed = parse_mermaid(fg.to_mermaid(y, grads=grads))
    assert parsed["nodes"]["n0"][1][2].startswith("Σ ct = [")


# --- inputs and text -----------------------------------------------------------------


def test_tensors_are_accepted_by_duck_typing():
    x = fg.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    parsed = parse_mermaid(fg.to_mermaid(y, names={x: "x"}))
    assert parsed["nodes"]["n0"][1] == ["x: leaf", "(2,) float32"]
    y.backward()
    parsed = parse_mermaid(fg.to_mermaid(y, grads={x: x.grad}))
    assert parsed["nodes"]["n0"][1][2] == "Σ ct = [2.0, 4.0]"


def test_a_tensor_without_a_graph_is_refused():
    with pytest.raises(TypeError, match="does not require grad"):
        fg.to_mermaid(fg.tensor([1.0]))
    with pytest.raises(TypeError, match="graph nodes or tensors"):
        fg.to_dot(np.ones(2))
    with pytest.raises(TypeError, match="at least one"):
        fg.to_dot()
    with pytest.raises(ValueError, match="direction"):
        fg.to_mermaid(fg.leaf(1.0), direction="sideways")


def test_labels_are_escaped():
    x = fg.leaf(1.0)
    y = fnp.exp(x)
    name = 'a"b<c>|#1`&\\'
    mermaid = fg.to_mermaid(y, names={x: name})
    label = parse_mermaid(mermaid)["nodes"]["n0"][1][0]
    assert label == "a#quot;b#lt;c#gt;#124;#35;1#96;#amp;\\: leaf"
    dot = parse_dot(fg.to_dot(y, names={x: name}))
    assert dot["nodes"]["n0"]["label"] == 'a"b<c>|#1`&\\\\: leaf\\n() float64'


def test_deep_graphs_do_not_recurse():
    x = fg.leaf(1.0)
    y = x
    for _ in range(5000):
        y = y * 1.0
    text = fg.to_mermaid(y, grads=fg.backward(y))
    assert text.count(" --> ") == 2 * 5000  # each multiply: the previous node and a constant
    assert text.count(" -.->|") == 5000 + 1


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_renders_the_dot_text(graph):
    x, y = graph
    text = fg.to_dot(y, grads=fg.backward(y, wrt=fg.toposort(y)), names={x: "x"})
    svg = subprocess.run(
        ["dot", "-Tsvg"], input=text, capture_output=True, text=True, check=True
    ).stdout
    assert svg.count('class="node"') == 7  # 5 nodes, the constant, the seed
    assert svg.count('class="edge"') == 12  # 6 forward, 6 backward


def test_numpy_scalars_print_as_plain_numbers():
    x = fg.leaf(2.0)
    y = x * np.float64(3.0) + np.float32(0.5) + np.int64(2)
    nodes = parse_mermaid(fg.to_mermaid(y))["nodes"]
    assert [nodes[k][1][0] for k in ("c0", "c1", "c2")] == ["3.0", "0.5", "2"]


_ROOT = __import__("pathlib").Path(__file__).resolve().parent.parent
_MERMAID_JS = _ROOT / "docs" / "assets" / "vendor" / "mermaid" / "mermaid.min.js"
_BROWSER = next(
    (b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None
)


@pytest.mark.skipif(
    _BROWSER is None or not _MERMAID_JS.exists(),
    reason="needs chromium and Mermaid (scripts/fetch_doc_assets.sh)",
)
def test_mermaid_renders_the_text(graph):
    """Mermaid itself (in headless Chromium, offline) renders every kind of output to SVG."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "check_site", _ROOT / "docs" / "_hooks" / "check_site.py"
    )
    check_site = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(check_site)

    x, y = graph
    odd = fg.leaf(1.0)
    texts = [
        fg.to_mermaid(y),
        fg.to_mermaid(y, grads=fg.backward(y, wrt=fg.toposort(y)), names={x: "x"}, direction="TB"),
        fg.to_mermaid(y, grads=fg.backward(y)),
        fg.to_mermaid(fnp.exp(odd), names={odd: 'a"b<c>|#1`&\\ end graph'}),
    ]
    errors = check_site.render_mermaid(texts, _MERMAID_JS, _BROWSER)
    assert errors == [None] * len(texts)
