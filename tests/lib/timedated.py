#!/usr/bin/python3
"""tests/lib/timedated.py CONTROL: a stand-in for systemd-timedated.

Owns org.freedesktop.timedate1 on the bus that DBUS_SYSTEM_BUS_ADDRESS
names (the tests' own dbus-daemon, never the host's) and answers
org.freedesktop.DBus.Properties.Get of its NTPSynchronized property:
true when the file CONTROL says "true", read at every call, so that a
test changes the answer of a service that runs; false otherwise.
Prints "ready" once it owns the name.
"""
import os
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.freedesktop.timedate1"
PATH = "/org/freedesktop/timedate1"


class Timedated(dbus.service.Object):
    def __init__(self, bus, control):
        super().__init__(bus, PATH)
        self.control = control

    @dbus.service.method("org.freedesktop.DBus.Properties",
                         in_signature="ss", out_signature="v")
    def Get(self, interface, prop):
        if interface != NAME or prop != "NTPSynchronized":
            raise dbus.exceptions.DBusException(
                "no property %s.%s here" % (interface, prop),
                name="org.freedesktop.DBus.Error.UnknownProperty")
        try:
            with open(self.control) as f:
                synced = f.read().strip() == "true"
        except OSError:
            synced = False
        return dbus.Boolean(synced)


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(os.environ["DBUS_SYSTEM_BUS_ADDRESS"])
    name = dbus.service.BusName(NAME, bus, do_not_queue=True)
    service = Timedated(bus, sys.argv[1])
    print("ready", flush=True)
    GLib.MainLoop().run()
    del name, service


if __name__ == "__main__":
    main()
