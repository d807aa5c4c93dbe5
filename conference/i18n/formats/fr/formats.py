# Django's French formats, but times as the French write them: "10 h 35" (stock: "10:35").
TIME_FORMAT = "G \\h i"
