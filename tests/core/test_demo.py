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
        chunk = demo.chunk_size(steps)
        assert steps % chunk == 0 and 1 <= chunk <= max(1, -(-steps // 10))
    assert demo.chunk_size(200) == 20


def test_grid_demo_writes_world_and_player_gifs(tmp_path, capsys):
    steps = 4
    demo.main(["--level", "pushbox", "--batch", "2", "--steps", str(steps), "--out", str(tmp_path)])
    out = capsys.readouterr().out
    assert "env-steps/s" in out and "pushbox (1 players)" in out
    world = iio.imread(tmp_path / "world.gif", index=None)
    view = iio.imread(tmp_path / "player1_view.gif", index=None)
    # identical consecutive frames may be merged in a GIF; sizes are the observations at 3x
    assert 1 <= world.shape[0] <= steps and world.shape[1:3] == (3 * 80, 3 * 80)
    assert 1 <= view.shape[0] <= steps and view.shape[1:3] == (3 * 88, 3 * 88)
