# Django's French formats, but times as the French write them: "10 h 35" (stock: "10:35").
TIME_FORMAT = "G \\h i"
# A moment as the admin prints it (a read-only field, an invitation's date, an upload's time):
# "7 déc. 2026, 1 h 42 CET", the zone named, since a page shows the conference's zone or the
# server's (stock: "j F Y H:i").
DATETIME_FORMAT = "j N Y, G \\h i T"
