// The admin's session form: the start, the duration and the end follow each other while the
// organizer types. A new start keeps the duration (the end moves), a new duration moves the end,
// a new end changes the duration. Progressive enhancement only: SessionAdminForm.clean() applies
// the same rules on save, and decides. Times are on the conference's clocks, whose zone the
// duration input names (data-time-zone), so a length is counted in real minutes across the night
// the clocks change, as the server counts it.
(function () {
  "use strict";

  var MINUTE = 60 * 1000;

  function readDate(text) {
    var match = /^\s*(\d{4})-(\d{1,2})-(\d{1,2})\s*$/.exec(text);
    if (match) return { y: +match[1], m: +match[2], d: +match[3], iso: true };
    match = /^\s*(\d{1,2})\/(\d{1,2})\/(\d{4})\s*$/.exec(text);
    if (match) return { y: +match[3], m: +match[2], d: +match[1], iso: false };
    return null;
  }

  function readTime(text) {
    var match = /^\s*(\d{1,2}):(\d{2})(?::(\d{2}))?\s*$/.exec(text);
    if (!match || +match[1] > 23 || +match[2] > 59) return null;
    return { h: +match[1], mi: +match[2], s: match[3] ? +match[3] : 0, seconds: !!match[3] };
  }

  function pad(number) {
    return (number < 10 ? "0" : "") + number;
  }

  function Clock(zone) {
    this.format = new Intl.DateTimeFormat("en-GB", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
  }

  // The wall clock at an instant, as milliseconds of a clock that never changes (UTC's).
  Clock.prototype.wall = function (instant) {
    var parts = {};
    this.format.formatToParts(new Date(instant)).forEach(function (part) {
      parts[part.type] = +part.value;
    });
    return Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second);
  };

  // The instants a wall clock time names: none (the clocks skip it), one, or two (they go back).
  Clock.prototype.instants = function (wall) {
    var self = this;
    var found = [];
    [wall - 36 * 60 * MINUTE, wall + 36 * 60 * MINUTE].forEach(function (around) {
      var offset = self.wall(around) - around;
      var instant = wall - offset;
      if (self.wall(instant) === wall && found.indexOf(instant) === -1) found.push(instant);
    });
    return found.sort(function (a, b) {
      return a - b;
    });
  };

  function TimeField(form, name) {
    this.date = form.querySelector("#id_" + name + "_0");
    this.time = form.querySelector("#id_" + name + "_1");
    this.name = name;
  }

  TimeField.prototype.text = function () {
    return this.date.value + " " + this.time.value;
  };

  TimeField.prototype.instant = function (clock) {
    var date = readDate(this.date.value);
    var time = readTime(this.time.value);
    if (!date || !time) return null;
    var instants = clock.instants(Date.UTC(date.y, date.m - 1, date.d, time.h, time.mi, time.s));
    if (instants.length < 2) return instants.length ? instants[0] : null;
    var fold = document.getElementById("id_" + this.name + "_fold");
    return instants[fold && fold.value === "1" ? 1 : 0];
  };

  // Write an instant in the formats the organizer's start uses.
  TimeField.prototype.show = function (clock, instant, like) {
    var wall = new Date(clock.wall(instant));
    var date = readDate(like.date.value) || { iso: false };
    var time = readTime(like.time.value) || { seconds: true };
    var y = wall.getUTCFullYear();
    var m = pad(wall.getUTCMonth() + 1);
    var d = pad(wall.getUTCDate());
    this.date.value = date.iso ? y + "-" + m + "-" + d : d + "/" + m + "/" + y;
    this.time.value =
      pad(wall.getUTCHours()) + ":" + pad(wall.getUTCMinutes()) + (time.seconds ? ":00" : "");
  };

  function enhance(form, duration) {
    var clock = new Clock(duration.dataset.timeZone);
    var start = new TimeField(form, "starts_at");
    var end = new TimeField(form, "ends_at");
    if (!start.date || !start.time || !end.date || !end.time) return;

    function minutes() {
      var value = duration.value.trim();
      return /^\d+$/.test(value) && +value > 0 ? +value : null;
    }

    var seen = { start: start.text(), end: end.text(), duration: duration.value };
    var seenLength = null;
    (function () {
      var from = start.instant(clock);
      var to = end.instant(clock);
      if (from !== null && to !== null && to > from) seenLength = to - from;
    })();

    // Show the end; one the clocks read twice (the night they go back) needs the fold the
    // page may not offer yet: then the end is left empty and the server counts it from the
    // duration, exactly.
    function showEnd(instant, fromDuration) {
      end.show(clock, instant, start);
      var readings = clock.instants(clock.wall(instant));
      if (readings.length < 2) return;
      var fold = document.getElementById("id_ends_at_fold");
      if (fold) {
        fold.value = instant === readings[1] ? "1" : "0";
      } else if (fromDuration) {
        end.date.value = "";
        end.time.value = "";
      }
    }

    function follow() {
      var from = start.instant(clock);
      var length = minutes();
      if (seen.start !== start.text() && from !== null) {
        // A new start keeps the length: the duration typed, or else the session's own.
        if (length !== null) showEnd(from + length * MINUTE, true);
        else if (seenLength !== null) showEnd(from + seenLength, false);
      } else if (seen.duration !== duration.value && from !== null && length !== null) {
        showEnd(from + length * MINUTE, true);
      } else if (seen.end !== end.text()) {
        var to = end.instant(clock);
        if (from !== null && to !== null && to > from && (to - from) % MINUTE === 0) {
          duration.value = String((to - from) / MINUTE);
        }
      }
      var now = { start: start.text(), end: end.text(), duration: duration.value };
      if (now.start !== seen.start || now.end !== seen.end || now.duration !== seen.duration) {
        var a = start.instant(clock);
        var b = end.instant(clock);
        seenLength = a !== null && b !== null && b > a ? b - a : seenLength;
      }
      seen = now;
    }

    // Django's calendar and clock shortcuts set the inputs without an event of their own: a
    // click anywhere may have changed them.
    ["input", "change", "click"].forEach(function (type) {
      document.addEventListener(type, function () {
        window.setTimeout(follow, 0);
      });
    });
  }

  function init() {
    var duration = document.querySelector("input#id_duration[data-time-zone]");
    if (duration && duration.form) enhance(duration.form, duration);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
