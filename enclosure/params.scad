// pitable enclosure: every dimension, in millimetres. pitable.scad draws from these only.
// x runs left to right across the front, y from the front to the back, z upwards.

// --- the box -------------------------------------------------------------------------
box = [200, 140, 72];        // outside, lid on
wall = 2.4;                  // side walls and floor
lid_t = 2.4;                 // lid plate
lid_lip = [1.6, 4];          // the lid's locating rim: thickness, depth
fit = 0.3;                   // clearance between the rim and the walls
corner_post = 8;             // square posts in the corners that take the lid screws
lid_screw = [2.5, 3.4];      // M3: pilot hole in the post, clearance hole in the lid
corner_r = 4;                // outside corner rounding
$fn = 32;                    // keep renders quick

// --- panels on the lid (centres from the lid's front-left corner) -------------------
// 0.96" SSD1306 module: 27.3 x 27.8 board; active area 21.74 x 10.86. The active area
// sits off the board's centre, away from the header; measure yours.
die_active = [21.74, 10.86];
die_board = [27.3, 27.8];
die_glass_offset = 2.5;      // board centre to active-area centre, toward the front
die_window_margin = 0.6;     // each side, so the first and last pixels stay visible
die_x = [45, 80, 115];       // green, purple, red
die_y = 30;
// 2.42" SSD1309 module: 70.7 x 43.5 board; active area 55.01 x 27.49.
status_active = [55.01, 27.49];
status_board = [70.7, 43.5];
status_window_margin = 0.8;
status_at = [80, 76];
// Standoffs under the lid for the panels' M2 holes (studs, heat-set or self-tapping).
panel_stud = [5, 1.8, 4];    // diameter, hole, height
die_holes = [23.5, 23.8];    // hole pattern of the 0.96" module
status_holes = [65.2, 38.1]; // hole pattern of the 2.42" module

// 30 mm arcade button (Sanwa OBSF-30 style snap-in: 30 mm hole in a 1.5-3 mm panel).
button_hole = 30;
button_at = [165, 40];
// EC11 rotary encoder: M7 bushing, and the slot for its anti-rotation tab.
encoder_hole = 7.4;
encoder_tab = [1.2, 2.8, 7.8];  // tab slot width, length, centre distance from the shaft
encoder_at = [165, 100];
// Round LEDs, 5 mm, pushed through from below (or in 8 mm panel clips: led_hole = 8).
led_hole = 5.2;
led_count = 5;
led_pitch = 12.5;
led_y = 110;
// Paper slot of the thermal printer (58 mm paper), above where the printer sits.
paper_slot = [62, 3];
paper_slot_at = [80, 128];

// --- inside the base -----------------------------------------------------------------
// Raspberry Pi (all 85 x 56 models; Zero 2 W uses the same 58 x 23 holes set 1 rotated,
// see BOM.md): board corner, turned so its long edge with the power socket meets the
// right wall.
pi_board = [56, 85];         // x, y as placed (85 mm along y)
pi_wall_gap = 0.6;           // between the board's edge and the right wall
pi_at = [box[0] - wall - pi_wall_gap - pi_board[0], 44];  // board's front-left corner
pi_holes = [49, 58];         // M2.5 pattern, 3.5 mm in from the board's edges
pi_hole_inset = 3.5;
pi_boss = [6, 2.2, 5];       // diameter, pilot hole for M2.5 self-tapping, height
// The power socket (USB-C on Pi 4 and 5; micro-USB on older boards sits 10.6 mm in, so
// the window is wide enough for both). Centre along the board edge, and its height
// above the board.
power_from_board_end = 11.2;
power_window = [13, 8];      // width, height
power_above_board = 1.6 + 1.6;
board_t = 1.6;
// Separate 5-9 V supply of the printer: a panel DC jack in the back wall.
printer_jack_hole = 8;
printer_jack_at = [30, 22];  // x along the back wall, height above the floor's underside
