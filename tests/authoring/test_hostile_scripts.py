"""Hostile level scripts (tests/authoring/hostile/): each ends in one clear error naming the script,
within its deadline + 5 s, writes nothing, and leaves this process usable (gc.collect() returns)."""
import concurrent.futures
import gc
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import jaxlab
from compile_lua.authoring import compile_authored
from compile_lua.cli import main as cli
from compile_lua.errors import CompileLimitError, LuaScriptError
from compile_lua.isolation import CompileLimits, compile_in_child

HOSTILE = Path(__file__).parent / "hostile"
DEADLINE_S = 4.0
# scripts that run until they are killed: the in-Lua budget cannot stop them
HANGS = ("rep_empty_string", "table_move", "pattern_backtracking", "xpcall_counting_handler",
         "finalizer_collected", "looping_error_handler")
ROOM = "*****\n*P A*\n*****\n"


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("JAXLAB_CACHE_DIR", str(tmp_path / "cache"))


def _timed_compile(path: Path, timeout_s: float = DEADLINE_S):
    """(exception or None, seconds) of one isolated compile of ``path``."""
    start = time.monotonic()
    try:
        compile_in_child(path, limits=CompileLimits(timeout_s=timeout_s), print_fn=lambda _: None)
        error = None
    except Exception as err:   # noqa: BLE001 - the test looks at what came out
        error = err
    return error, time.monotonic() - start


def test_scripts_that_hang_end_at_their_deadline():
    """Long C calls, swallowed budgets, looping handlers and finalizers: all stopped at the deadline."""
    paths = [HOSTILE / f"{name}.lua" for name in HANGS + ("pcall_swallows_budget",)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(_timed_compile, paths))
    for path, (error, seconds) in zip(paths, results):
        assert isinstance(error, LuaScriptError), (path.name, error)
        assert str(error).startswith(str(path)), str(error)
        if path.stem in HANGS:
            assert isinstance(error, CompileLimitError) and f"exceeded {DEADLINE_S:g} s" in str(error)
        assert seconds < DEADLINE_S + 5, (path.name, seconds)
    assert gc.collect() >= 0


def test_a_finalizer_left_in_the_lua_state_never_runs_here():
    """The level compiles; its looping finalizer dies with the child, and gc.collect() here returns."""
    env = jaxlab.make(str(HOSTILE / "finalizer_at_exit.lua"), compile_timeout_s=60)
    assert int(env.bank.levels.cells.shape[0]) == 1
    assert gc.collect() >= 0


def test_the_cli_exits_after_writing_a_level_with_a_looping_finalizer(tmp_path, capsys):
    out = tmp_path / "room.jaxlab"
    assert cli([str(HOSTILE / "finalizer_at_exit.lua"), "-o", str(out)]) == 0
    assert f"wrote {out}" in capsys.readouterr().out and out.is_file()
    assert gc.collect() >= 0


def test_map_names_outside_the_allowed_folders_get_one_message(tmp_path):
    """Relative, absolute, missing and symlinked-outside names: the same message, nothing of the file."""
    secret = tmp_path / "elsewhere" / "secret.txt"
    secret.parent.mkdir()
    secret.write_text("*****\n*P G*\n*****\n")
    level = tmp_path / "level"
    level.mkdir()
    (level / "linked.txt").symlink_to(secret)
    (level / "linked.lua").write_text("return {nextMap = function() return 'linked' end}\n")
    (level / "up.lua").write_text("return {nextMap = function() return '../elsewhere/secret' end}\n")
    cases = [HOSTILE / f"{name}.lua" for name in ("map_path_relative", "map_path_absolute", "map_path_missing")]
    cases += [level / "linked.lua", level / "up.lua"]
    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        errors = [error for error, _ in pool.map(lambda p: _timed_compile(p, 120.0), cases)]
    messages = []
    for path, error in zip(cases, errors):
        assert type(error) is LuaScriptError, (path, error)
        text = str(error)
        assert text.startswith(str(path)) and "neither a map made with make_map.makeMap" in text
        assert "*P G*" not in text and "root:" not in text
        name = text.split("returned ")[1].split(", which")[0]
        messages.append(text.split("nextMap returned ", 1)[1].split("; did you mean")[0].replace(name, "NAME"))
    assert len(set(messages)) == 1, "\n".join(messages)


def test_a_map_file_beside_the_script_is_read_and_recorded(tmp_path):
    """A map named by the script and found in its folder compiles; the file is one of the bank's inputs,
    so changing it misses the cache."""
    (tmp_path / "my_room.txt").write_text(ROOM)
    script = tmp_path / "level.lua"
    script.write_text("return {nextMap = function() return 'my_room' end}\n")
    compiled = compile_authored(script, cache_directory=tmp_path / "cache")
    assert str((tmp_path / "my_room.txt").resolve()) in compiled.meta["files"]
    assert compile_authored(script, cache_directory=tmp_path / "cache").cached
    (tmp_path / "my_room.txt").write_text(ROOM.replace("P A", "PAA"))
    again = compile_authored(script, cache_directory=tmp_path / "cache")
    assert not again.cached and int(again.bank.levels.pickup_valid.sum()) == 2


def test_terminal_escapes_are_escaped_in_prints_and_errors(tmp_path, capsys):
    script = HOSTILE / "terminal_escapes.lua"
    with pytest.raises(LuaScriptError) as caught:
        jaxlab.make(str(script))
    printed = capsys.readouterr().err
    for text in (printed, str(caught.value)):
        assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text
    assert "\\x1b[2J" in printed and "\\x1b[31mred" in str(caught.value)


def test_a_compile_out_of_memory_is_one_line_naming_the_cap(tmp_path, capsys):
    """A script whose 100 MB error message the compiler copies past the cap (256 MB beyond the child's
    start-up; the Lua heap's own cap is not reached) runs out of memory: the CLI prints one line naming
    the cap (the child's MemoryError traceback stays out of it) and writes nothing."""
    script, out = tmp_path / "huge_error.lua", tmp_path / "x.jaxlab"
    script.write_text("local big = string.rep('x', 100 * 1024 * 1024)\nerror(big)\n")
    assert cli([str(script), "-o", str(out), "--memory-mb", "256"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err[:300]
    assert err.startswith(f"{script}: the compile ran out of memory: its memory cap is "
                          "256 MB (--memory-mb, compile_memory_mb)") and not out.exists()


def test_the_memory_cap_counts_from_the_child_s_start_up(tmp_path):
    """256 MB beyond start-up compile a level (the cap no longer includes Python and JAX, nor a GPU
    plugin's libraries mapped when JAX starts in the child)."""
    out = tmp_path / "x.jaxlab"
    orchard = Path(__file__).resolve().parents[2] / "jaxlab" / "levels" / "dmlab" / "lua" / "apple_orchard.lua"
    assert cli([str(orchard),
                "-o", str(out), "--memory-mb", "256"]) == 0 and out.exists()


def test_a_compile_process_that_dies_is_reported_in_one_line(tmp_path, monkeypatch):
    """A child that dies without an answer (here a stand-in that prints a traceback and exits): one
    CompileLimitError line quoting the last line it said, never its traceback."""
    stand_in = tmp_path / "python"
    stand_in.write_text("#!/bin/sh\nprintf 'Traceback (most recent call last):\\n  File \"x\", line 1\\n"
                        "MemoryError\\n' >&2\nexit 1\n")
    stand_in.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(stand_in))
    with pytest.raises(CompileLimitError) as caught:
        compile_in_child(HOSTILE / "finalizer_at_exit.lua", limits=CompileLimits(timeout_s=30))
    assert "\n" not in str(caught.value) and str(caught.value).endswith("memory cap is 4096 MB (--memory-mb, "
                                                                        "compile_memory_mb); it said: MemoryError")


@pytest.mark.parametrize("value", [0, -1, float("nan"), float("inf"), 1e300, "10", True])
def test_compile_limits_are_checked(value):
    with pytest.raises(ValueError, match="timeout_s"):
        CompileLimits(timeout_s=value)


@pytest.mark.parametrize("option, value, expected", [
    ("--seed", "-1", "expected an integer in [0, 9223372036854775807], got '-1'"),
    ("--seed", "1.5", "expected an integer in [0, 9223372036854775807], got '1.5'"),
    ("--episodes", "0", "expected an integer in [1, 1000000], got '0'"),
    ("--timeout", "nan", "expected a number in [1, 604800], got 'nan'"),
    ("--timeout", "1e300", "expected a number in [1, 604800], got '1e300'"),
    ("--memory-mb", "100", "expected an integer in [256, 1073741824], got '100'"),
    ("--memory-mb", "4096.5", "expected an integer in [256, 1073741824], got '4096.5'"),
])
def test_cli_option_values_out_of_range_are_usage_errors_naming_the_option(option, value, expected, capsys):
    err = _usage_error([str(HOSTILE / "finalizer_at_exit.lua"), option, value], capsys)
    assert f"compile_lua: error: argument {option}: {expected}" in err and "Traceback" not in err


def test_cli_refuses_a_script_or_levels_folder_that_is_not_one(tmp_path, capsys):
    script = HOSTILE / "finalizer_at_exit.lua"
    (tmp_path / "folder.lua").mkdir()
    cases = {(str(tmp_path / "folder.lua"),): f"{tmp_path / 'folder.lua'} is a folder, not a level script",
             (str(tmp_path / "missing.lua"),): f"no such level script: {tmp_path / 'missing.lua'}",
             (str(script), "--levels-dir", str(tmp_path / "none")): f"levels folder {tmp_path / 'none'} "
                                                                    "(levels_dir, --levels-dir) does not exist",
             (str(script), "--levels-dir", str(script)): "is a file, not a folder"}
    for argv, words in cases.items():
        err = _usage_error(list(argv), capsys)
        assert words in err and "Traceback" not in err, err


def test_cli_reports_a_wrong_callback_answer_in_one_located_line(tmp_path, capsys):
    """A createPickup that answers a string: one `file:line:` line, exit 1, nothing written."""
    script = tmp_path / "level.lua"
    script.write_text("local make_map = require 'common.make_map'\nlocal api = {}\n"
                      "function api:nextMap()\n  return make_map.makeMap{mapName = 'r', mapEntityLayer = "
                      "'*****\\n*P x*\\n*****', pickups = {x = 'thing'}}\nend\n"
                      "function api:createPickup(name) return 'a string' end\nreturn api\n")
    assert cli([str(script), "-o", str(tmp_path / "x.jaxlab")]) == 1
    err = capsys.readouterr().err
    assert err == (f"{script}:6: api:createPickup must return a table (name, classname, model, quantity, "
                   "type) or nil, got 'a string' (a string)\n")
    assert not (tmp_path / "x.jaxlab").exists()


def test_cli_stops_a_hanging_compile_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "out.jaxlab"
    assert cli([str(HOSTILE / "rep_empty_string.lua"), "-o", str(out), "--timeout", "5"]) == 1
    assert "exceeded 5 s" in capsys.readouterr().err and not out.exists()


def _usage_error(argv, capsys) -> str:
    with pytest.raises(SystemExit) as caught:
        cli(argv)
    assert caught.value.code == 2
    return capsys.readouterr().err


def test_cli_refuses_bad_output_paths_before_compiling(tmp_path, capsys):
    script = tmp_path / "level.lua"
    script.write_text("print('compiled')\nreturn {nextMap = function() return 'x' end}\n")
    (tmp_path / "a_file").write_text("")
    (tmp_path / "folder.jaxlab").mkdir()
    cases = {str(tmp_path / "missing" / "x.jaxlab"): "does not exist",
             str(tmp_path / "folder.jaxlab"): "is a folder",
             str(tmp_path / "a_file" / "x.jaxlab"): "which is a file"}
    for output, words in cases.items():
        err = _usage_error([str(script), "-o", output], capsys)
        assert words in err and "compiled" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a_file", "folder.jaxlab", "level.lua"]


def test_cli_never_writes_over_its_script(tmp_path, capsys):
    """A Lua source named x.jaxlab: its default output (and -o itself) would be the script."""
    script = tmp_path / "level.jaxlab"
    source = ("local m = require 'common.make_map'\n"
              "return {nextMap = function() return m.makeMap('***\\n*P*\\n***', 'r') end}\n")
    script.write_text(source)
    for argv in ([str(script)], [str(script), "-o", str(script)]):
        assert "is the level script itself" in _usage_error(argv, capsys)
        assert script.read_text() == source


def _children_of(pid: int) -> list:
    """Pids whose parent is ``pid`` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


def test_ctrl_c_stops_a_compile_at_once(tmp_path):
    """SIGINT to a process compiling a script stuck in one C call: it stops within seconds (exit 130),
    its compile process gone with it."""
    # as from a terminal: Ctrl-C raises KeyboardInterrupt even when this test runs with SIGINT ignored
    # (a background job), which a child would inherit
    as_from_a_terminal = ("import runpy, signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
                          "runpy.run_module('compile_lua', run_name='__main__')")
    proc, compile_processes = _start_compiling([sys.executable, "-c", as_from_a_terminal,
                                                str(HOSTILE / "table_move.lua"), "-o", str(tmp_path / "x.jaxlab"),
                                                "--timeout", "120"])
    proc.send_signal(signal.SIGINT)
    try:
        err = proc.communicate(timeout=30)[1]
    finally:
        proc.kill()
    assert proc.returncode == 130 and "interrupted" in err, err
    _assert_gone(compile_processes)
    assert not (tmp_path / "x.jaxlab").exists()


def _start_compiling(argv):
    """A process running ``argv`` once its compile process is deep in the script's C call (4 CPU
    seconds: its start takes about 2): (process, compile process pids)."""
    proc = subprocess.Popen(argv, stderr=subprocess.PIPE, text=True, env=dict(os.environ, JAX_PLATFORMS="cpu"))
    deadline = time.monotonic() + 120
    while max(map(_cpu_seconds, _children_of(proc.pid)), default=0) < 4 and time.monotonic() < deadline:
        time.sleep(0.2)
    return proc, _children_of(proc.pid)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc; 0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _assert_gone(pids):
    assert pids
    gone = time.monotonic() + 5
    while any(Path(f"/proc/{pid}").exists() for pid in pids) and time.monotonic() < gone:
        time.sleep(0.1)
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)


def test_a_compile_does_not_outlive_a_killed_caller():
    """SIGKILL to the caller (no chance to clean up): its compile process, stuck in a C call, goes too."""
    code = ("from compile_lua.isolation import CompileLimits, compile_in_child; "
            f"compile_in_child({str(HOSTILE / 'table_move.lua')!r}, limits=CompileLimits(timeout_s=300))")
    proc, compile_processes = _start_compiling([sys.executable, "-c", code])
    proc.kill()
    proc.wait()
    _assert_gone(compile_processes)
