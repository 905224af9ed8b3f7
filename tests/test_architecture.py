"""The layering ARCHITECTURE.md states holds in the code, and its picture is the code's."""

import pytest

from tests import architecture as arch

MODULES = arch.modules()
IMPORTS = arch.all_imports()


def test_every_module_has_a_layer():
    homeless = [m for m in MODULES if arch.layer_of(m) is None]
    assert not homeless, (f"expected every module in a layer of tests/architecture.py LAYERS (and so in "
                          f"ARCHITECTURE.md); these are in none: {homeless}")


def _where(imp):
    return f"{MODULES[imp.source].relative_to(arch.ROOT)}:{imp.line}"


def test_no_import_runs_up_the_layers():
    upward = []
    for imp in IMPORTS:
        if not arch.ours(imp.target):
            continue
        here, there = arch.layer_of(imp.source), arch.layer_of(imp.target)
        if there is not None and here is not None and there > here:
            upward.append(f"{_where(imp)}: {imp.source} (layer {arch.LAYERS[here].name!r}) imports "
                          f"{imp.target} (layer {arch.LAYERS[there].name!r}, above it)")
    assert not upward, "expected imports only of the same layer or below; seen:\n" + "\n".join(upward)


def test_no_import_cycle_not_even_a_deferred_one():
    edges = {(i.source, i.target) for i in IMPORTS if arch.ours(i.target) and i.source != i.target}
    # A package imports its submodules' names, and a submodule's import runs the package first:
    # that is Python's structure, not a cycle of ours.  Only imports of a package's own
    # __init__ from inside it would close one; those are checked as ordinary edges.
    found = arch.cycles(edges)
    assert not found, f"expected no import cycle among {arch.PACKAGES}; seen: {found}"


def test_no_import_is_deferred_to_dodge_a_cycle():
    # Allowed: a deferred import of a module the importer could not import at the top without a
    # cost the comment beside it names (matplotlib, nbgrader: start-up time).  An import of one of
    # our own modules from a lower layer is never deferred: the top of the file is where it goes.
    deferred = [f"{_where(i)}: {i.source} imports {i.target} inside a function"
                for i in IMPORTS if i.deferred and arch.ours(i.target)
                and arch.layer_of(i.target) is not None and arch.layer_of(i.target) < arch.layer_of(i.source)
                and "lazy" not in MODULES[i.source].read_text().splitlines()[i.line - 1]]
    assert not deferred, ("expected our own lower-layer imports at the top of the module (or a '# lazy: why' "
                          "comment on the line); seen:\n" + "\n".join(deferred))


@pytest.mark.parametrize("scope", sorted(arch.FORBIDDEN))
def test_forbidden_imports(scope):
    layer_names = [layer.name for layer in arch.LAYERS]
    bad = []
    for imp in IMPORTS:
        if scope in layer_names:
            inside = arch.layer_of(imp.source) == layer_names.index(scope)
        else:
            inside = imp.source.split(".")[0] == scope
        if inside and imp.target.split(".")[0] in arch.FORBIDDEN[scope]:
            bad.append(f"{_where(imp)}: {imp.source} imports {imp.target}")
    assert not bad, (f"expected no module of {scope!r} to import any of {arch.FORBIDDEN[scope]}; seen:\n"
                     + "\n".join(bad))


def test_architecture_md_shows_the_graph_of_the_code():
    text = arch.DOCUMENT.read_text(encoding="utf-8")
    block = arch.document_block(text)
    assert block is not None, f"expected ARCHITECTURE.md to hold the generated block starting {arch.BEGIN!r}"
    expected = arch.generated_block()
    assert block == expected, ("expected ARCHITECTURE.md's module graph to be the code's; it is stale. "
                               "Run: python -m tests.architecture\n--- in the document:\n"
                               f"{block}\n--- from the code:\n{expected}")


def test_the_checks_can_fail():
    # The checks above see a violation when there is one.
    assert arch.cycles({("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")}) == [["a", "b", "c"]]
    assert arch.layer_of("autograd_lib.tensor") < arch.layer_of("autograd_lib.graph")
    assert arch.layer_of("autograd_course.sandbox") > arch.layer_of("autograd_course.checking")
