#!/usr/bin/python3
# A minimal freedesktop notification service for the tests (D4): owns org.freedesktop.Notifications
# on the session bus named by DBUS_SESSION_BUS_ADDRESS, records every Notify call as one JSON line
# in the file given as argv[1], and prints "ready" once it owns the name.
import json
import sys

import dbus
import dbus.service
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib

INTERFACE = 'org.freedesktop.Notifications'


def plain(value):
    """dbus-python values to JSON-friendly ones (dbus.Byte is an int, dbus.String a str, …)."""
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (dbus.Array, dbus.Struct, list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    return str(value)


class NotificationService(dbus.service.Object):
    def __init__(self, bus, record_file):
        name = dbus.service.BusName(INTERFACE, bus, do_not_queue=True)
        super().__init__(name, '/org/freedesktop/Notifications')
        self.record_file = record_file
        self.next_id = 0

    @dbus.service.method(INTERFACE, in_signature='susssasa{sv}i', out_signature='u')
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
        self.next_id += 1
        record = {
            'id': self.next_id,
            'appName': plain(app_name),
            'replacesId': plain(replaces_id),
            'appIcon': plain(app_icon),
            'summary': plain(summary),
            'body': plain(body),
            'actions': plain(actions),
            'hints': plain(hints),
            'expireTimeout': plain(expire_timeout),
        }
        with open(self.record_file, 'a', encoding='utf-8') as out:
            out.write(json.dumps(record) + '\n')
        return dbus.UInt32(self.next_id)

    @dbus.service.method(INTERFACE, in_signature='', out_signature='as')
    def GetCapabilities(self):
        return ['body', 'body-markup']

    @dbus.service.method(INTERFACE, in_signature='', out_signature='ssss')
    def GetServerInformation(self):
        return ('ai-zen-test-notifications', 'ai-zen', '1.0', '1.2')

    @dbus.service.method(INTERFACE, in_signature='u', out_signature='')
    def CloseNotification(self, notification_id):
        pass


def main():
    DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    NotificationService(bus, sys.argv[1])
    print('ready', flush=True)
    GLib.MainLoop().run()


if __name__ == '__main__':
    main()
