--[[ Apple walk: two players in a small walled orchard.

Eating an apple (walking onto it) pays `appleReward` and leaves a sprout that
grows back into an apple with a chance per frame that rises with the apples
still standing within `regrowthRadius` cells (a patch eaten bare stays bare).
`fireZap` casts a short beam ahead; a player it hits freezes for
`freezeFrames` frames.

A Lab2D-style grid level for jaxlab: the world is declared as data by
api:world() and compiled with compile_lua (see docs/grid_lua.md):

    env = jaxlab.make('jaxlab/levels/lab2d/lua/apple_walk.lua',
                      level_settings = {episodeLengthFrames = 100})
]]

local api = {}

-- The level's settings and their defaults. Level settings given to
-- jaxlab.make / compile_grid_level override them (with their types) before
-- api:init runs; they are the level's properties 'settings.<name>'.
api.settings = {
    episodeLengthFrames = 200,
    appleReward = 1.0,
    -- Regrowth chance per frame by the number of apples nearby (0, 1, 2, 3+).
    regrowth = {0.0, 0.01, 0.03, 0.06},
    regrowthRadius = 2,
    zapLength = 3,
    zapCooldown = 4,
    freezeFrames = 6,
}

local PLAYERS = 2

local MAP = [[
WWWWWWWWWWW
WP   A   PW
W   AAA   W
W  AA AA  W
W   AAA   W
WP   A   PW
WWWWWWWWWWW
]]

local CLEAR = {0, 0, 0, 0}

local function sprites()
  local avatarArt = [[
...##...
..####..
..#oo#..
...##...
.######.
.#.##.#.
...##...
..#..#..
]]
  local function avatar(colour)
    return {art = avatarArt, palette = {['.'] = CLEAR, ['#'] = colour, o = {250, 250, 240}}}
  end
  return {
      Wall = {
          art = [[
=======-
=-==-===
--------
==-=====
======-=
-==-====
--------
===-====
]],
          palette = {['='] = {104, 96, 88}, ['-'] = {70, 64, 60}},
      },
      Grass = {
          art = [[
gggggggg
gg'ggggg
gggggg'g
gggggggg
g'gggggg
gggg'ggg
gggggggg
ggggggg'
]],
          palette = {g = {86, 152, 72}, ["'"] = {104, 170, 84}},
      },
      Apple = {
          art = [[
....s...
...s....
..rrrr..
.rrrrrr.
.rrrrwr.
.rrrrrr.
..rrrr..
........
]],
          palette = {['.'] = CLEAR, r = {206, 38, 44}, w = {240, 150, 150}, s = {60, 100, 30}},
      },
      Sprout = {
          art = [[
........
........
........
....l...
...l.l..
....l...
...bbb..
........
]],
          palette = {['.'] = CLEAR, l = {60, 170, 60}, b = {110, 80, 50}},
      },
      Zap = {
          art = [[
zzzzzzzz
zZzzzZzz
zzzZzzzz
zzzzzzZz
zZzzzzzz
zzzzZzzz
zzZzzzzZ
zzzzzzzz
]],
          palette = {z = {250, 230, 90, 110}, Z = {255, 255, 200, 200}},
      },
      Player1 = avatar({60, 110, 230}),
      Player2 = avatar({230, 140, 40}),
  }
end

function api:init(settings)
  -- The overrides are already in self.settings; nothing else to set up.
  self._players = PLAYERS
end

function api:world()
  local s = self.settings
  local states = {
      grass = {layer = 'background', sprite = 'Grass', char = ' '},
      spawnPoint = {layer = 'logic'},
      apple = {layer = 'items', sprite = 'Apple', char = 'A', groups = {'apples'}},
      sprout = {layer = 'items', sprite = 'Sprout', char = '.'},
      wall = {layer = 'pieces', sprite = 'Wall', char = 'W', blocksBeams = true},
      zap = {layer = 'overlay', sprite = 'Zap', char = '*'},
  }
  local players, contacts, beamHits = {}, {}, {}
  for p = 1, self._players do
    local avatar = 'player' .. p
    states[avatar] = {layer = 'pieces', sprite = 'Player' .. p, char = tostring(p)}
    players[p] = {state = avatar, spawn = 'spawnPoint'}
    contacts[p] = {mover = avatar, other = 'apple', becomes = 'sprout', reward = s.appleReward}
    beamHits[p] = {beam = 'fireZap', target = avatar, freezeFrames = s.freezeFrames}
  end
  return {
      name = 'apple_walk',
      map = MAP,
      charMap = {
          [' '] = 'grass',
          W = {'grass', 'wall'},
          A = {'grass', 'apple'},
          P = {'grass', 'spawnPoint'},
      },
      layers = {'background', 'logic', 'items', 'pieces', 'overlay'},
      states = states,
      sprites = sprites(),
      players = players,
      contacts = contacts,
      beams = {
          {action = 'fireZap', length = s.zapLength, overlay = 'zap', cooldown = s.zapCooldown},
      },
      beamHits = beamHits,
      transitions = {
          {source = 'sprout', target = 'apple', probability = s.regrowth, neighbour = 'apple',
           radius = s.regrowthRadius},
      },
      view = {left = 2, right = 2, forward = 3, backward = 1},
      episodeFrames = s.episodeLengthFrames,
      topology = 'BOUNDED',
      spriteSize = 8,
  }
end

function api:observationSpec()
  local specs = {
      {name = 'WORLD.RGB', type = 'tensor.ByteTensor', shape = {7 * 8, 11 * 8, 3}},
      {name = 'WORLD.TEXT', type = 'String'},
  }
  for p = 1, self._players do
    table.insert(specs, {name = p .. '.RGB', type = 'tensor.ByteTensor', shape = {5 * 8, 5 * 8, 3}})
    table.insert(specs, {name = p .. '.REWARD', type = 'tensor.DoubleTensor', shape = {}})
    table.insert(specs, {name = p .. '.POSITION', type = 'tensor.Int32Tensor', shape = {2}})
  end
  return specs
end

function api:discreteActionSpec()
  local specs = {}
  for p = 1, self._players do
    table.insert(specs, {name = p .. '.move', min = 0, max = 4})
    table.insert(specs, {name = p .. '.turn', min = -1, max = 1})
    table.insert(specs, {name = p .. '.fireZap', min = 0, max = 1})
  end
  return specs
end

function api:start(episode, seed)
  self._episode = episode
end

return api
