#!/usr/bin/env bash
# Install pitable as a service on Raspberry Pi OS (Bookworm; Pi Zero 2 W to Pi 5).
#
#     sudo ./install.sh              # install, or update after a `git pull`
#     ./install.sh --root DIR        # write the files under DIR; print the commands
#     ./install.sh --without-pin-libraries   # on a Debian without the Raspberry Pi archive
#
# Safe to run again: files are written only when their content changes, the config file
# is never overwritten, and the include line goes into config.txt once. It creates the
# system user pitable (groups gpio, i2c, spi, dialout), a virtualenv in /opt/pitable with
# the `pi` extra, /etc/pitable/pitable.toml if there is none, the boot config fragment for
# that config and its include line, the udev rule for /dev/hwrng and the systemd unit (with
# its drop-ins for the web page and the TV when the config enables them), and enables the
# service. It says when a reboot is needed, and keeps saying so on every run until the
# machine has rebooted (a flag under /run, which a reboot empties), even after a run that
# failed; loading i2c-dev and udev's reload and trigger are done on every run.
#
# With --root DIR (or PITABLE_ROOT=DIR) every path is taken under DIR and the commands that
# would change the running system (apt-get, useradd, pip, systemctl, udevadm) are printed
# instead of run; the tests install into a temporary directory this way. PITABLE_PYTHON
# names the Python that generates the files there (default: python3 on this source tree).
#
# --without-pin-libraries leaves out the pin libraries of the Raspberry Pi archive
# (python3-lgpio, python3-rpi.gpio), for a Debian that lacks that archive, such as the
# emulated roots of scripts/pi-check: the box installs, and gpiozero finds no pin library
# there (`pitable doctor` says so). Where systemd is not running (a chroot, a container),
# the steps that need it (daemon-reload, restart) are reported and skipped.
#
# The compiled libraries (Pillow, cbor2) come from the OS's packages, which the venv sees,
# so that nothing is compiled on a 32-bit Raspberry Pi OS, for which PyPI has no wheels of
# them; the pin libraries come from the Raspberry Pi archive.
set -euo pipefail

SRC=$(cd "$(dirname "$0")" && pwd)
ROOT=${PITABLE_ROOT:-}
PIN_LIBRARIES=yes
while [ $# -gt 0 ]; do
    case $1 in
        --root) ROOT=${2:?--root needs a directory}; shift 2 ;;
        --root=*) ROOT=${1#--root=}; shift ;;
        --without-pin-libraries) PIN_LIBRARIES=""; shift ;;
        -h|--help) sed -n '2,31p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh: unknown argument $1 (try --help)" >&2; exit 2 ;;
    esac
done
if [ -n "$ROOT" ]; then
    ROOT=$(cd "$ROOT" && pwd)
elif [ "$(id -u)" != 0 ]; then
    echo "install.sh: run as root: sudo ./install.sh (or --root DIR to try it out)" >&2
    exit 2
fi

PREFIX=/opt/pitable
VENV=$PREFIX/venv
CONFIG=/etc/pitable/pitable.toml
UNIT=/etc/systemd/system/pitable.service
RULES=/etc/udev/rules.d/99-pitable.rules
FRAGMENT=pitable-config.txt
GROUPS_NEEDED="gpio i2c spi dialout"
# Why a reboot is needed, kept where a reboot clears it (/run is a tmpfs) so that a run
# after one that changed the boot files and then failed still says so.
REBOOT_FLAG=/run/pitable-install/reboot-needed
# The libraries the venv takes from the OS: built for the board, nothing to compile.
# fonttools (under fpdf2) is not among them: it publishes a pure-Python wheel beside its
# compiled ones (its Cython parts are optional speed-ups), which pip takes on any board,
# while Debian's python3-fonttools depends on SymPy, lxml, fs and either SciPy (with
# Pythran, GCC and Boost) or munkres: tens of MB, and minutes of byte-compiling on a Pi Zero.
OS_PYTHON_PACKAGES="python3-pil python3-cbor2"

say() { printf 'pitable: %s\n' "$*"; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit 1; }

# A command that changes the running system: run it, or with --root only show it.
run() {
    if [ -n "$ROOT" ]; then
        printf 'would run: %s\n' "$*"
    else
        "$@"
    fi
}

# Write stdin to ROOT/PATH with MODE when the content differs; true when it was written.
# A file that cannot be written stops the install: put is called as an `if` condition,
# where `set -e` stops nothing by itself, and never at the end of a pipe, whose subshell
# an exit would leave.
put() {
    local path=$ROOT$1 mode=$2 tmp
    tmp=$(mktemp)
    cat >"$tmp"
    if [ -f "$path" ] && cmp -s "$tmp" "$path"; then
        rm -f "$tmp"
        return 1
    fi
    if ! { mkdir -p "$(dirname "$path")" && install -m "$mode" "$tmp" "$path"; } 2>/dev/null
    then
        rm -f "$tmp"
        die "cannot write $1"
    fi
    rm -f "$tmp"
    say "wrote $1"
    return 0
}

# Remember that a reboot is needed, and why, until the machine reboots.
need_reboot() {
    REBOOT=$1
    mkdir -p "$(dirname "$ROOT$REBOOT_FLAG")" && printf '%s\n' "$1" >"$ROOT$REBOOT_FLAG" \
        || die "cannot write $REBOOT_FLAG"
}

# What an earlier run found that the reboot has not yet applied.
REBOOT=""
if [ -s "$ROOT$REBOOT_FLAG" ]; then
    REBOOT=$(head -n 1 "$ROOT$REBOOT_FLAG")
fi

# A systemctl command that needs the running systemd: where systemd is not running (its
# /run/systemd/system is missing, as sd_booted checks), say so and go on; the next boot
# loads the unit from its files.
live() {
    if [ -z "$ROOT" ] && [ ! -d /run/systemd/system ]; then
        say "systemd is not running here: skipped '$*'; the next boot does it"
    else
        run "$@"
    fi
}

# A step that only applies now what the files already say at boot (a module, udev's
# rules): where it cannot run (no such module in this kernel, no udev daemon), say so and
# go on, as the next boot applies it.
now() {
    if [ -n "$ROOT" ]; then
        printf 'would run: %s\n' "$*"
    elif ! "$@" 2>/dev/null; then
        say "could not run '$*' now; the next boot does it"
    fi
}

# The Python that generates files from the config: the service's own once it exists; with
# --root the source tree's (config and firmware generation need only the standard library).
python_for_files() {
    if [ -n "${PITABLE_PYTHON:-}" ]; then
        PYTHONPATH=$SRC "$PITABLE_PYTHON" "$@"
    elif [ -z "$ROOT" ] && [ -x "$VENV/bin/python" ]; then
        "$VENV/bin/python" "$@"
    else
        PYTHONPATH=$SRC python3 "$@"
    fi
}

model() {
    local file=$ROOT/proc/device-tree/model
    [ -z "$ROOT" ] && file=/proc/device-tree/model
    if [ -r "$file" ]; then tr -d '\0' <"$file"; else echo "unknown model"; fi
}

# --- the user --------------------------------------------------------------------------
step_user() {
    local group
    for group in pitable $GROUPS_NEEDED; do
        if [ -n "$ROOT" ] || ! getent group "$group" >/dev/null; then
            run groupadd --force --system "$group"
        fi
    done
    if [ -n "$ROOT" ] || ! id pitable >/dev/null 2>&1; then
        run useradd --system --gid pitable --home-dir /var/lib/pitable --no-create-home \
            --shell /usr/sbin/nologin pitable
    fi
    run usermod --append --groups "${GROUPS_NEEDED// /,}" pitable
}

# --- the program -----------------------------------------------------------------------
# The pin libraries come from the Raspberry Pi archive, which Raspberry Pi OS lists in its
# apt sources and plain Debian does not: say that in one line rather than leave it to
# apt's "Unable to locate package". With --root, apt here is not the target's: only say.
check_rpi_archive() {
    local package missing=""
    command -v apt-cache >/dev/null || return 0
    for package in "$@"; do
        apt-cache show --no-all-versions "$package" >/dev/null 2>&1 || missing="$missing $package"
    done
    [ -z "$missing" ] && return 0
    local why="apt knows no${missing}: the Raspberry Pi archive is missing from its sources"
    why="$why (Raspberry Pi OS has it; on plain Debian add it, then apt-get update)"
    if [ -n "$ROOT" ]; then
        say "here, install.sh would stop: $why"
    else
        die "$why"
    fi
}

step_venv() {
    local board pin_packages
    board=$(model)
    # gpiozero tries lgpio first, which drives every Pi through /dev/gpiochip*; RPi.GPIO is
    # its fallback on the older boards and does not work on a Pi 5. Debian's builds are
    # used so that nothing is compiled on a Pi Zero; the venv sees them.
    case $board in
        *"Raspberry Pi 5"*) pin_packages="python3-lgpio" ;;
        *) pin_packages="python3-lgpio python3-rpi.gpio" ;;
    esac
    say "board: $board"
    if [ -z "$PIN_LIBRARIES" ]; then
        say "without the pin libraries ($pin_packages): gpiozero has none here"
        pin_packages=""
    fi
    [ -z "$pin_packages" ] || check_rpi_archive $pin_packages
    run apt-get install -y --no-install-recommends python3-venv python3-pip \
        $OS_PYTHON_PACKAGES $pin_packages
    if [ -n "$ROOT" ] || [ ! -x "$VENV/bin/python" ]; then
        run python3 -m venv --system-site-packages "$VENV"
    fi
    run "$VENV/bin/pip" install --quiet --upgrade "$SRC[pi]"
    # `pitable doctor` and the other commands on every user's PATH.
    if [ "$(readlink "$ROOT/usr/local/bin/pitable" 2>/dev/null)" != "$VENV/bin/pitable" ]; then
        mkdir -p "$ROOT/usr/local/bin"
        ln -sfn "$VENV/bin/pitable" "$ROOT/usr/local/bin/pitable"
        say "linked /usr/local/bin/pitable"
    fi
}

# --- the configuration -----------------------------------------------------------------
step_config() {
    local text
    if [ -e "$ROOT$CONFIG" ]; then
        say "keeping $CONFIG"
    else
        text=$(python_for_files -m pitable config show) || die "cannot write the default config"
        case $(model) in
            # On a Pi 5, /dev/serial0 is the debug connector's UART; GPIO 14/15 are ttyAMA0.
            *"Raspberry Pi 5"*) text=${text//'port = "/dev/serial0"'/'port = "/dev/ttyAMA0"'} ;;
        esac
        put "$CONFIG" 0644 <<<"$text" || true
    fi
    # Everything below is made from the config: a wrong one stops here, before any file
    # is written from it, with the line that names the wrong key.
    python_for_files -m pitable --config "$ROOT$CONFIG" config check >/dev/null \
        || die "fix $CONFIG, then run install.sh again"
}

# The output of a generator, or stop: a generator that fails must never leave an empty
# file behind (a pipe into put would write whatever arrived).
generated() {
    local text
    text=$(python_for_files "$@") || die "could not generate from $CONFIG: python $*"
    printf '%s\n' "$text"
}

# --- the boot partition ----------------------------------------------------------------
boot_dir() {
    if [ -f "$ROOT/boot/firmware/config.txt" ]; then
        echo /boot/firmware
    elif [ -f "$ROOT/boot/config.txt" ]; then
        echo /boot
    else
        echo "install.sh: no config.txt in $ROOT/boot/firmware or $ROOT/boot: is this" \
            "Raspberry Pi OS?" >&2
        exit 1
    fi
}

step_boot() {
    local boot=$BOOT config_txt cmdline
    config_txt=$ROOT$boot/config.txt
    cmdline=$ROOT$boot/cmdline.txt
    local fragment
    fragment=$(generated -m pitable.firmware boot --config "$ROOT$CONFIG")
    if put "$boot/$FRAGMENT" 0644 <<<"$fragment"; then
        need_reboot "the boot config changed"
    fi
    # /dev/i2c-N needs the i2c-dev module, which raspi-config would load; so do we, at
    # every boot and now (again on every run: a run that failed may have written the file).
    put /etc/modules-load.d/pitable.conf 0644 <<<"i2c-dev" || true
    now modprobe i2c-dev
    # The user's config.txt is never rewritten: one include line is added, once, under
    # [all] so that a conditional section at its end does not swallow it.
    if ! grep -Eq "^[[:space:]]*include[[:space:]]+$FRAGMENT[[:space:]]*$" "$config_txt"; then
        [ -e "$config_txt.pitable-backup" ] || cp -p "$config_txt" "$config_txt.pitable-backup"
        printf '\n# pitable: the parts of the dice box (see %s)\n[all]\ninclude %s\n' \
            "$FRAGMENT" "$FRAGMENT" >>"$config_txt"
        say "added 'include $FRAGMENT' to $boot/config.txt"
        need_reboot "the boot config changed"
    fi
    # A login console on the printer's UART would print every boot message on its paper.
    if grep -q '^enable_uart=1' "$ROOT$boot/$FRAGMENT" && [ -f "$cmdline" ] \
        && grep -Eq 'console=(serial0|ttyAMA0|ttyS0),[0-9]+' "$cmdline"; then
        [ -e "$cmdline.pitable-backup" ] || cp -p "$cmdline" "$cmdline.pitable-backup"
        sed -E -i -e 's/console=(serial0|ttyAMA0|ttyS0),[0-9]+[[:space:]]*//' \
            -e 's/[[:space:]]+$//' "$cmdline"
        say "took the serial console off the printer's UART in $boot/cmdline.txt"
        need_reboot "the boot config changed"
    fi
    if grep -q '^dtoverlay=disable-bt' "$ROOT$boot/$FRAGMENT" \
        && { [ -n "$ROOT" ] || systemctl list-unit-files hciuart.service >/dev/null 2>&1; }; then
        # With Bluetooth off, the service that sets up its modem on the UART only fails.
        run systemctl disable hciuart.service
    fi
}

# --- the table's web page and the TV ----------------------------------------------------
# True when the config's TABLE ([web] or [tv]) is enabled.
table_enabled() {
    python_for_files -c 'import sys
from pitable.config import load_config
sys.exit(0 if getattr(load_config(sys.argv[1]), sys.argv[2]).enabled else 1)' \
        "$ROOT$CONFIG" "$1"
}

# The unit runs without network and without the framebuffer; a drop-in opens what the
# part needs, only while the config enables it. step_dropin TABLE WHAT ON-MESSAGE
step_dropin() {
    local table=$1 what=$2 on=$3
    local dropin=/etc/systemd/system/pitable.service.d/$table.conf
    if table_enabled "$table"; then
        put "$dropin" 0644 <"$SRC/systemd/pitable-$table.conf" || true
        say "$what is on: $on ($dropin)"
    elif [ -e "$ROOT$dropin" ]; then
        rm -f "$ROOT$dropin"
        say "removed $dropin: $what is off"
    fi
}

# --- udev and systemd ------------------------------------------------------------------
step_udev() {
    local rules
    rules=$(generated -m pitable.firmware udev --config "$ROOT$CONFIG")
    put "$RULES" 0644 <<<"$rules" || true
    # Applied now, on every run: a run that failed after writing the rule left it unapplied.
    # The generator's kernel name is hw_random (its node is /dev/hwrng).
    now udevadm control --reload
    now udevadm trigger --action=change --subsystem-match=misc --sysname-match=hw_random
}

step_unit() {
    local wants=/etc/systemd/system/multi-user.target.wants/pitable.service
    put "$UNIT" 0644 <"$SRC/systemd/pitable.service" || true
    live systemctl daemon-reload
    if [ -n "$ROOT" ]; then
        # What `systemctl enable` does, from the unit's [Install] section.
        if [ "$(readlink "$ROOT$wants" 2>/dev/null)" != "$UNIT" ]; then
            mkdir -p "$(dirname "$ROOT$wants")"
            ln -sfn "$UNIT" "$ROOT$wants"
            say "enabled pitable.service"
        fi
    elif [ ! -d /run/systemd/system ]; then
        # Without a running systemd, enable works on the files alone.
        systemctl --root=/ enable --quiet pitable.service
    else
        systemctl enable --quiet pitable.service
    fi
}

# Before anything changes: a machine without a boot partition is not a Pi to install on.
BOOT=$(boot_dir)
step_user
step_venv
step_config
step_boot
step_udev
step_dropin web "the table's web page" "the service may use the local network"
step_dropin tv "the TV" "the service may draw on the HDMI framebuffer"
step_unit

if [ -n "$REBOOT" ]; then
    say "installed; reboot needed ($REBOOT): sudo reboot"
    say "after the reboot, check the parts with: sudo pitable doctor"
else
    live systemctl restart pitable.service
    say "installed; no reboot needed. Check the parts with: sudo pitable doctor"
fi
