"""The notebooks run top to bottom at tiny sizes (JAXLAB_NB_QUICK=1) and show their pictures."""
import os
from pathlib import Path

import nbclient
import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[2]
#: notebook -> the kinds of picture it must show
NOTEBOOKS = {
    "01_quickstart.ipynb": {"image/png", "image/gif"},
    "02_train_ppo.ipynb": {"image/png", "image/gif"},
    "03_author_a_level.ipynb": {"image/png"},
    "04_text_quests.ipynb": {"image/png"},
    "05_grid_worlds.ipynb": {"image/png", "image/gif"},
}


def test_every_notebook_is_listed():
    assert sorted(p.name for p in (ROOT / "notebooks").glob("*.ipynb")) == sorted(NOTEBOOKS)


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_is_stored_without_outputs_and_opens_in_colab(name):
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    nbformat.validate(nb)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None
    assert f"colab.research.google.com/github/jaxlab/jaxlab/blob/main/notebooks/{name}" in nb.cells[0].source
    assert any('QUICK = os.environ.get("JAXLAB_NB_QUICK") == "1"' in cell.source for cell in nb.cells[:4])


@pytest.mark.parametrize("name", sorted(NOTEBOOKS))
def test_notebook_runs(name, tmp_path, monkeypatch):
    monkeypatch.setenv("JAXLAB_NB_QUICK", "1")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    nb = nbformat.read(ROOT / "notebooks" / name, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError on any failing cell

    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    mimes = {m for o in outputs if o.output_type in ("display_data", "execute_result") for m in o.get("data", {})}
    assert NOTEBOOKS[name] <= mimes, mimes
