// pitable enclosure: a base that holds the Pi and the printer, and a lid that carries the
// panels. Every dimension is in params.scad.
//
//   openscad -D 'part="base"' -o base.stl pitable.scad     (print open side up)
//   openscad -D 'part="lid"'  -o lid.stl  pitable.scad     (print top face down)
//   openscad -o box.png --render pitable.scad              (the assembly, lid lifted)
include <params.scad>

part = "assembly";  // "base", "lid" or "assembly"
explode = 30;       // how far the lid floats above the base in the assembly

base_h = box[2] - lid_t;
inner = [box[0] - 2 * wall, box[1] - 2 * wall];
e = 0.01;           // overlap, so that unions and cuts never share a face

module rounded_rect(size, r, h) {
    hull()
        for (x = [r, size[0] - r], y = [r, size[1] - r])
            translate([x, y, 0]) cylinder(r = r, h = h);
}

function post_centres() = [
    for (x = [wall + corner_post / 2, box[0] - wall - corner_post / 2],
         y = [wall + corner_post / 2, box[1] - wall - corner_post / 2]) [x, y]
];

function pi_holes_at() = [
    for (i = [0, 1], j = [0, 1])
        [pi_at[0] + pi_hole_inset + i * pi_holes[0], pi_at[1] + pi_hole_inset + j * pi_holes[1]]
];

// --- the base ------------------------------------------------------------------------

module base() {
    difference() {
        union() {
            difference() {
                rounded_rect(box, corner_r, base_h);
                translate([wall, wall, wall])
                    rounded_rect(inner, max(corner_r - wall, 0.5), base_h);
            }
            // Corner posts for the lid screws, merged into the walls.
            for (c = post_centres())
                translate([c[0] - corner_post / 2 - e, c[1] - corner_post / 2 - e, wall - e])
                    cube([corner_post + 2 * e, corner_post + 2 * e, base_h - wall + e]);
            // Bosses for the Pi's M2.5 mounting holes.
            for (h = pi_holes_at())
                translate([h[0], h[1], wall - e]) cylinder(d = pi_boss[0], h = pi_boss[2] + e);
        }
        for (c = post_centres())
            translate([c[0], c[1], base_h - 12]) cylinder(d = lid_screw[0], h = 12 + e);
        for (h = pi_holes_at())
            translate([h[0], h[1], wall]) cylinder(d = pi_boss[1], h = pi_boss[2] + e);
        // The Pi's power socket, through the right wall.
        power_z = wall + pi_boss[2] + board_t + power_above_board / 2;
        translate([box[0] - wall - 1, pi_at[1] + power_from_board_end - power_window[0] / 2,
                   power_z - power_window[1] / 2])
            cube([wall + 2, power_window[0], power_window[1]]);
        // The printer's DC jack, through the back wall.
        translate([printer_jack_at[0], box[1] - wall - 1, printer_jack_at[1]])
            rotate([-90, 0, 0]) cylinder(d = printer_jack_hole, h = wall + 2);
    }
}

// --- the lid (as it sits on the box: top face at z = lid_t, rim below z = 0) ---------------

module window(centre, active, margin) {
    translate([centre[0] - active[0] / 2 - margin, centre[1] - active[1] / 2 - margin, -1])
        cube([active[0] + 2 * margin, active[1] + 2 * margin, lid_t + 2]);
}

module studs(centre, pattern) {
    for (i = [-1, 1], j = [-1, 1])
        translate([centre[0] + i * pattern[0] / 2, centre[1] + j * pattern[1] / 2,
                   -panel_stud[2]])
            difference() {
                cylinder(d = panel_stud[0], h = panel_stud[2] + e);
                translate([0, 0, -1]) cylinder(d = panel_stud[1], h = panel_stud[2]);
            }
}

module lid_rim() {
    outer = [inner[0] - 2 * fit, inner[1] - 2 * fit];
    notch = corner_post + 2 * fit;
    translate([wall + fit, wall + fit, -lid_lip[1]])
        difference() {
            cube([outer[0], outer[1], lid_lip[1] + e]);
            translate([lid_lip[0], lid_lip[0], -1])
                cube([outer[0] - 2 * lid_lip[0], outer[1] - 2 * lid_lip[0], lid_lip[1] + 2]);
            // Room for the corner posts.
            for (x = [-1, outer[0] - notch + fit], y = [-1, outer[1] - notch + fit])
                translate([x, y, -1]) cube([notch + 1 - fit, notch + 1 - fit, lid_lip[1] + 2]);
        }
}

module lid() {
    difference() {
        union() {
            rounded_rect([box[0], box[1]], corner_r, lid_t);
            lid_rim();
            for (x = die_x) studs([x, die_y - die_glass_offset], die_holes);
            studs(status_at, status_holes);
        }
        for (x = die_x) window([x, die_y], die_active, die_window_margin);
        window(status_at, status_active, status_window_margin);
        translate([button_at[0], button_at[1], -1]) cylinder(d = button_hole, h = lid_t + 2);
        translate([encoder_at[0], encoder_at[1], -1]) cylinder(d = encoder_hole, h = lid_t + 2);
        translate([encoder_at[0] - encoder_tab[0] / 2,
                   encoder_at[1] + encoder_tab[2] - encoder_tab[1] / 2, -1])
            cube([encoder_tab[0], encoder_tab[1], lid_t / 2 + 1]);
        for (i = [0 : led_count - 1])
            translate([status_at[0] + (i - (led_count - 1) / 2) * led_pitch, led_y, -1])
                cylinder(d = led_hole, h = lid_t + 2);
        translate([paper_slot_at[0] - paper_slot[0] / 2, paper_slot_at[1] - paper_slot[1] / 2,
                   -lid_lip[1] - 1])
            cube([paper_slot[0], paper_slot[1], lid_t + lid_lip[1] + 2]);
        for (c = post_centres())
            translate([c[0], c[1], -lid_lip[1] - 1]) cylinder(d = lid_screw[1], h = 20);
    }
}

// --- what to draw -----------------------------------------------------------------------

if (part == "base") {
    base();
} else if (part == "lid") {
    // Top face down on the bed; the rim and the studs point up.
    translate([0, box[1], lid_t]) rotate([180, 0, 0]) lid();
} else {
    color("DimGray") base();
    color("WhiteSmoke") translate([0, 0, base_h + explode]) lid();
}
