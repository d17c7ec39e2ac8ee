-- Test double of dmlab.system.game for the device translator's differential tests: the inputs a
-- translated callback reads (episode time, player info) are set from Python, and the effects it
-- asks for (score, finishMap) are recorded, as the kernel's effects pytree holds them.
local game = {time = 0, player = {pos = {0, 0, 0}, vel = {0, 0, 0}, angles = {0, 0, 0}, score = 0}}
game.effects = {score = 0, finish = false}

function game:addScore(a, b) game.effects.score = game.effects.score + (b ~= nil and b or a) end
function game:finishMap() game.effects.finish = true end
function game:episodeTimeSeconds() return game.time end
function game:playerInfo() return game.player end
return game
