"""notebooks/01_quickstart.ipynb runs top to bottom (small sizes) and shows images."""
import os
from pathlib import Path

import nbclient
import nbformat

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "notebooks" / "01_quickstart.ipynb"


def test_notebook_is_stored_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert not cell.outputs and cell.execution_count is None
    assert "colab.research.google.com/github/jaxlab/jaxlab/blob/main/notebooks/01_quickstart.ipynb" in nb.cells[0].source


def test_quickstart_notebook_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("JAXLAB_NB_BATCH", "4")
    monkeypatch.setenv("JAXLAB_NB_STEPS", "6")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError on any failing cell

    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors
    mimes = [m for c in nb.cells if c.cell_type == "code" for o in c.outputs
             if o.output_type in ("display_data", "execute_result") for m in o.get("data", {})]
    assert "image/png" in mimes and "image/gif" in mimes
