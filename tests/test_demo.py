"""``jaxlab-demo`` end to end, small: it writes a decodable GIF and top-down PNG."""
import imageio.v3 as iio
import numpy as np

from jaxlab import demo


def test_demo_writes_gif_and_png(tmp_path, capsys):
    steps, width, height = 6, 32, 24
    demo.main(["--batch", "3", "--steps", str(steps), "--width", str(width), "--height", str(height),
               "--out", str(tmp_path), "--seed", "1"])
    out = capsys.readouterr().out
    assert "env-steps/s" in out and "compile" in out

    gif = iio.imread(tmp_path / "agent_view.gif", index=None)
    # the initial frame plus one per step, upscaled 4x; a timeline bar keeps frames distinct
    assert gif.shape[:3] == (steps + 1, 4 * height, 4 * width)
    assert gif.dtype == np.uint8

    png = iio.imread(tmp_path / "top_down.png")
    assert png.ndim == 3 and png.shape[2] in (3, 4) and png.dtype == np.uint8
    assert png.shape[0] > 50 and png.shape[1] > 50
    assert str(tmp_path / "agent_view.gif") in out and str(tmp_path / "top_down.png") in out


def test_chunk_size_divides_steps():
    for steps in (1, 7, 12, 200, 199):
        chunk = demo._chunk_size(steps)
        assert steps % chunk == 0 and 1 <= chunk <= max(1, -(-steps // 10))
    assert demo._chunk_size(200) == 20
