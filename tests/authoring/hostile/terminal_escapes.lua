-- Printed and raised text that would clear the screen, retitle the window and recolour the terminal.
print('\27[2J\27]0;owned\7\155cleared')
error('\27[31mred\27[0m')
