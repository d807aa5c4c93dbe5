// The schedule planner's drag and drop and keyboard moves (admin/schedule/session/planner.html).
// Progressive enhancement: without this file each block's title opens its "Move to…" form.
// Every move posts that same form (SessionMoveForm) through htmx; the server answers with the
// status line, and after a saved move the board asks for itself again ("planner-moved").
(function () {
  "use strict";

  var planner = document.getElementById("planner");
  if (!planner || !window.htmx) return;

  var zone = planner.dataset.zone;
  var clock = new Intl.DateTimeFormat("en-GB", {
    timeZone: zone,
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  });
  var announcer = document.getElementById("planner-announce");
  var dragged = null; // {block, grabRows}
  var picked = null; // {block, home, nextSibling, classes, column, row}
  var focusAfterRefresh = null;

  function body() {
    return planner.querySelector(".planner-body");
  }

  function columns() {
    return Array.prototype.slice.call(planner.querySelectorAll(".planner-column"));
  }

  function sideList() {
    return planner.querySelector(".planner-side");
  }

  function slotMinutes() {
    return Number(body().dataset.slotMinutes);
  }

  function rowCount() {
    return Number(body().dataset.rows);
  }

  function spanOf(block) {
    return Math.max(1, Math.ceil(Number(block.dataset.minutes) / slotMinutes()));
  }

  function rowStart(row) {
    var first = new Date(body().dataset.firstRowAt).getTime();
    return new Date(first + (row - 1) * slotMinutes() * 60000);
  }

  function currentRow(block) {
    var match = /(?:^|\s)r(\d+)(?:\s|$)/.exec(block.className);
    return match ? Number(match[1]) : 1;
  }

  function clampRow(row, block) {
    return Math.min(Math.max(1, row), Math.max(1, rowCount() - spanOf(block) + 1));
  }

  function setRows(element, row, span) {
    element.className = element.className.replace(/(^|\s)[rs]\d+(?=\s|$)/g, "");
    element.classList.add("r" + row, "s" + span);
  }

  function describe(column, row) {
    if (!column) return gettext("Unscheduled list");
    return column.dataset.roomName + ", " + clock.format(rowStart(row));
  }

  function announce(text) {
    announcer.textContent = "";
    // A new text node each time, so the same words said twice are announced twice.
    window.setTimeout(function () {
      announcer.textContent = text;
    }, 30);
  }

  function enhance(root) {
    root.querySelectorAll(".planner-block").forEach(function (block) {
      block.tabIndex = 0;
      block.setAttribute("aria-describedby", "planner-keys");
      block.setAttribute("aria-roledescription", gettext("movable session"));
      var link = block.querySelector(".planner-title a");
      if (link) link.tabIndex = -1; // the block itself takes the keyboard
    });
  }

  // Posting a move --------------------------------------------------------------------------

  // Taking a published session off the schedule unpublishes it: asked first, as the public
  // loses it and the next release announces it as removed (SessionMoveForm's "unpublish").
  function confirmsUnpublishing(block) {
    return window.confirm(
      interpolate(
        gettext("“%(title)s” is published. Taking it off the schedule unpublishes it, and the next release lists it as removed. Unpublish it?"),
        { title: titleOf(block) },
        true
      )
    );
  }

  function move(block, column, row) {
    var values = { version: block.dataset.version };
    if (column) {
      values.action = "place";
      values.room = column.dataset.room;
      values.starts_at = rowStart(row).toISOString();
    } else {
      values.action = "unschedule";
      if (block.classList.contains("is-published")) {
        if (!confirmsUnpublishing(block)) {
          // In the status line (a live region: it is read out too), where every move's outcome
          // is shown, rather than leaving it empty.
          var line = document.createElement("p");
          line.className = "planner-outcome";
          line.textContent = gettext("Not moved: it stays published.");
          document.getElementById("planner-status").replaceChildren(line);
          return Promise.resolve(false);
        }
        values.unpublish = "on";
      }
    }
    block.classList.add("is-pending");
    focusAfterRefresh = block.id;
    return htmx
      .ajax("POST", block.dataset.moveUrl, {
        source: block,
        target: "#planner-status",
        swap: "innerHTML",
        values: values,
      })
      .then(function () {
        block.classList.remove("is-pending");
        var outcome = document.querySelector("#planner-status [data-outcome]");
        var saved = outcome && outcome.dataset.outcome === "saved";
        if (saved) {
          // Shown where it went at once; the board's refresh that follows brings the rest
          // (warnings, the side list) up to date.
          showAt(block, column, row);
        }
        // Saved or refused, the block keeps the focus in the board drawn again.
        return saved; // the status line was announced as it was swapped in (below)
      });
  }

  function showAt(block, column, row) {
    if (column) {
      setRows(block, row, spanOf(block));
      if (block.parentNode !== column) column.appendChild(block);
    } else if (!block.closest(".planner-unscheduled")) {
      sideList().querySelector(".planner-unscheduled").prepend(block);
    }
  }

  // Drag and drop ---------------------------------------------------------------------------

  var ghost = document.createElement("div");
  ghost.className = "planner-ghost";
  ghost.setAttribute("aria-hidden", "true");

  function dropTarget(event) {
    var target = event.target instanceof Element ? event.target : null;
    if (!target) return null;
    var column = target.closest(".planner-column");
    if (column) return { column: column };
    if (target.closest(".planner-side")) return { column: null };
    return null;
  }

  function rowAt(column, clientY, block) {
    var box = column.getBoundingClientRect();
    var rowHeight = box.height / rowCount();
    var row = Math.floor((clientY - box.top) / rowHeight) + 1 - dragged.grabRows;
    return clampRow(row, block);
  }

  function clearDropTargets() {
    planner.querySelectorAll(".is-drop-target").forEach(function (element) {
      element.classList.remove("is-drop-target");
    });
    if (ghost.parentNode) ghost.parentNode.removeChild(ghost);
  }

  document.addEventListener("dragstart", function (event) {
    var block = event.target instanceof Element && event.target.closest(".planner-block");
    if (!block || !planner.contains(block) || picked) return;
    var grabRows = 0;
    if (block.closest(".planner-column")) {
      var box = block.getBoundingClientRect();
      var rowHeight = box.height / spanOf(block);
      grabRows = Math.max(0, Math.floor((event.clientY - box.top) / rowHeight));
    }
    dragged = { block: block, grabRows: grabRows };
    event.dataTransfer.effectAllowed = "move";
    event.dataTransfer.setData("text/plain", block.dataset.session);
    block.classList.add("is-dragged");
  });

  document.addEventListener("dragover", function (event) {
    if (!dragged) return;
    var target = dropTarget(event);
    clearDropTargets();
    if (!target) return;
    event.preventDefault();
    event.dataTransfer.dropEffect = "move";
    if (target.column) {
      var row = rowAt(target.column, event.clientY, dragged.block);
      setRows(ghost, row, spanOf(dragged.block));
      ghost.textContent = clock.format(rowStart(row));
      target.column.appendChild(ghost);
      target.column.classList.add("is-drop-target");
    } else if (dragged.block.closest(".planner-column")) {
      sideList().classList.add("is-drop-target");
    }
  });

  document.addEventListener("drop", function (event) {
    if (!dragged) return;
    var target = dropTarget(event);
    var block = dragged.block;
    var row = target && target.column ? rowAt(target.column, event.clientY, block) : null;
    clearDropTargets();
    if (!target) return;
    event.preventDefault();
    if (!target.column && !block.closest(".planner-column")) return; // list to list: no move
    move(block, target.column, row);
  });

  document.addEventListener("dragend", function () {
    if (dragged) dragged.block.classList.remove("is-dragged");
    dragged = null;
    clearDropTargets();
  });

  // The keyboard ----------------------------------------------------------------------------

  function pickUp(block) {
    var column = block.closest(".planner-column");
    if (!column && !columns().length) {
      announce(gettext("This day has no room to move it to."));
      return;
    }
    picked = {
      block: block,
      home: block.parentNode,
      nextSibling: block.nextSibling,
      classes: block.className,
      column: column,
      row: column ? currentRow(block) : null,
    };
    if (!column) {
      // From the list: start in the first room at the first row of the day.
      placeAt(columns()[0], 1);
    }
    block.classList.add("is-picked");
    announce(interpolate(gettext("Picked up %(title)s: %(place)s."), { title: titleOf(block), place: describe(picked.column, picked.row) }, true));
  }

  function titleOf(block) {
    var title = block.querySelector(".planner-title a");
    return title ? title.textContent.replace(/^Move /, "") : "session";
  }

  function placeAt(column, row) {
    var block = picked.block;
    picked.column = column;
    if (column) {
      picked.row = clampRow(row, block);
      setRows(block, picked.row, spanOf(block));
      column.appendChild(block);
    } else {
      picked.row = null;
      sideList().querySelector(".planner-unscheduled").prepend(block);
    }
    block.focus();
  }

  function putBack() {
    var block = picked.block;
    block.className = picked.classes;
    picked.home.insertBefore(block, picked.nextSibling);
    block.focus();
  }

  function step(dx, dy) {
    var all = columns();
    var index = picked.column ? all.indexOf(picked.column) : -1;
    if (dx) {
      var next = index + dx;
      if (next < -1 || next >= all.length) return;
      placeAt(next === -1 ? null : all[next], picked.row || 1);
    } else if (picked.column) {
      placeAt(picked.column, picked.row + dy);
    }
    announce(describe(picked.column, picked.row));
  }

  // Typing while a session is in hand: a time ("1050", "10:50", "9") goes to the first row of
  // the day whose clock reading starts with what was typed, a room's first letters ("ce") to
  // that room; each keystroke jumps. What was typed is kept until the other kind is typed, an
  // arrow key is pressed, a complete time is followed by a digit, or a pause of TYPED_MS.
  var TYPED_MS = 1500;
  var typed = { kind: null, text: "", at: 0 };

  function typedKind(key) {
    if (/^[0-9]$/.test(key)) return "time";
    if (key === ":" || key === ".") return "time";
    if (key.length === 1 && /\S/.test(key)) return "room";
    return null;
  }

  function forgetTyped() {
    typed = { kind: null, text: "", at: 0 };
  }

  function completeTime(text) {
    return /^\d{4}$/.test(text) || /^\d{1,2}[:.]\d\d$/.test(text);
  }

  function rowForTime(text, block) {
    var clockText = text.replace(".", ":");
    var last = clampRow(rowCount(), block); // the last row the session fits from
    for (var row = 1; row <= last; row++) {
      var reading = clock.format(rowStart(row)); // "09:05"
      var short = reading.replace(/^0/, ""); // "9:05"
      var readings = [reading, short];
      if (clockText.indexOf(":") < 0) {
        readings = [reading.replace(":", ""), short.replace(":", "")]; // "1050" for 10:50
      }
      var found = readings.some(function (candidate) {
        return candidate.indexOf(clockText) === 0;
      });
      if (found) return row;
    }
    return null;
  }

  function columnForRoom(text) {
    var wanted = text.toLowerCase();
    var all = columns();
    var names = all.map(function (column) {
      return column.dataset.roomName.toLowerCase();
    });
    for (var i = 0; i < all.length; i++) {
      if (names[i].replace(/\s+/g, "").indexOf(wanted) === 0) return all[i];
    }
    // Then any word of a name: "stage" finds Master Stage.
    for (var j = 0; j < all.length; j++) {
      var words = names[j].split(/\s+/);
      var found = words.some(function (word) {
        return word.indexOf(wanted) === 0;
      });
      if (found) return all[j];
    }
    return null;
  }

  function jumpTo(key) {
    var kind = typedKind(key);
    var now = Date.now();
    var fresh =
      kind !== typed.kind ||
      now - typed.at > TYPED_MS ||
      (kind === "time" && completeTime(typed.text));
    var text = fresh ? key : typed.text + key;
    if (kind === "room" && !fresh && !columnForRoom(text) && columnForRoom(key)) text = key;
    typed = { kind: kind, text: text, at: now };
    var here = describe(picked.column, picked.row);
    if (kind === "time") {
      var row = rowForTime(text, picked.block);
      if (row === null) {
        announce(interpolate(gettext("No time %(time)s on this day for this session; still at %(place)s."), { time: text, place: here }, true));
        return;
      }
      placeAt(picked.column || columns()[0], row);
    } else {
      var column = columnForRoom(text);
      if (!column) {
        announce(interpolate(gettext("No room starting “%(text)s”; still at %(place)s."), { text: text, place: here }, true));
        return;
      }
      placeAt(column, picked.row || 1);
    }
    announce(describe(picked.column, picked.row));
  }

  function drop() {
    forgetTyped();
    var current = picked;
    picked = null;
    current.block.classList.remove("is-picked");
    var unchanged =
      current.column === current.home.closest(".planner-column") &&
      (current.column === null || currentRowOf(current) === current.row);
    if (unchanged) {
      putBackFrom(current);
      announce(gettext("Put back where it was."));
      return;
    }
    move(current.block, current.column, current.row).then(function (saved) {
      if (!saved) putBackFrom(current); // refused: it snaps back
    });
  }

  function currentRowOf(state) {
    var match = /(?:^|\s)r(\d+)(?:\s|$)/.exec(state.classes);
    return match ? Number(match[1]) : null;
  }

  function putBackFrom(state) {
    picked = state;
    putBack();
    picked = null;
  }

  function cancel() {
    forgetTyped();
    putBack();
    picked = null;
    announce(gettext("Move cancelled."));
  }

  document.addEventListener("keydown", function (event) {
    var block = event.target instanceof Element && event.target.closest(".planner-block");
    if (!block || block !== event.target || !planner.contains(block)) return;
    var key = event.key;
    if (!picked) {
      if (key === "Enter" || key === " ") {
        event.preventDefault();
        pickUp(block);
      }
      return;
    }
    if (picked.block !== block) return;
    var moves = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    if (moves[key]) {
      event.preventDefault();
      forgetTyped();
      step(moves[key][0], moves[key][1]);
    } else if (key === "Enter" || key === " ") {
      event.preventDefault();
      drop();
    } else if (key === "Escape") {
      event.preventDefault();
      cancel();
    } else if (typedKind(key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      jumpTo(key);
    }
  });

  // Leaving a picked-up block (Tab, a click elsewhere) cancels its move.
  document.addEventListener("focusout", function (event) {
    if (!picked || event.target !== picked.block) return;
    window.setTimeout(function () {
      if (picked && document.activeElement !== picked.block) cancel();
    }, 0);
  });

  // Whatever put a new status line in (a move, Undo), it is what screen readers hear next: the
  // words of the move before must not stay in the live region.
  document.body.addEventListener("htmx:afterSwap", function (event) {
    if (!event.detail.target || event.detail.target.id !== "planner-status") return;
    var outcome = document.querySelector("#planner-status [data-outcome]");
    announce(outcome ? outcome.textContent.trim() : "");
  });

  function refreshBoard() {
    var board = document.getElementById("planner-board");
    var active = document.activeElement;
    if (!focusAfterRefresh && active && active.id && active.classList.contains("planner-block")) {
      focusAfterRefresh = active.id; // the block in focus keeps it once the board is new
    }
    htmx.ajax("GET", board.dataset.refreshUrl, {
      source: board,
      target: board,
      swap: "outerHTML",
    });
  }

  // After a move, saved or refused (the answer's HX-Trigger), the board is asked for again. The
  // listener sits on the document, so it hears the event whatever part of the board is swapped.
  document.body.addEventListener("planner-moved", refreshBoard);

  // Others' moves: every few seconds the page asks whether the conference changed since its
  // board was drawn (its ETag, a 304 when not), and draws the board again if it did. Not while
  // a session is in hand, a move is under way, or a filter field has the focus (the board holds
  // the filters: redrawing would take it away): the next round catches up. docs/organizers.md
  // says why polling.
  var POLL_MS = 4000;

  function busy() {
    var active = document.activeElement;
    return (
      dragged ||
      picked ||
      planner.querySelector(".is-pending") ||
      (active && active.closest && active.closest("#planner-board") && active.matches("input, select, textarea"))
    );
  }

  function poll() {
    var board = document.getElementById("planner-board");
    if (document.hidden || busy() || !board || !board.dataset.etag) {
      window.setTimeout(poll, POLL_MS);
      return;
    }
    window
      .fetch(planner.dataset.stateUrl, {
        headers: { "If-None-Match": board.dataset.etag },
        cache: "no-store",
        credentials: "same-origin",
      })
      .then(function (response) {
        var etag = response.headers.get("ETag");
        if (response.status === 200 && etag && etag !== board.dataset.etag && !busy()) {
          refreshBoard();
        }
      })
      .catch(function () {}) // offline for a moment: try again next round
      .then(function () {
        window.setTimeout(poll, POLL_MS);
      });
  }

  // After htmx swaps a part of the board -------------------------------------------------------

  document.body.addEventListener("htmx:afterSettle", function (event) {
    enhance(event.detail.elt || planner);
    if (focusAfterRefresh) {
      var block = document.getElementById(focusAfterRefresh);
      if (block && block !== document.activeElement && event.detail.elt.id === "planner-board") {
        block.focus({ preventScroll: false });
        focusAfterRefresh = null;
      }
    }
  });

  // Open the day where its sessions start rather than at the top of the rows drawn.
  function scrollToFirstSession() {
    var scroller = planner.querySelector(".planner-scroll");
    var rows = Array.prototype.map.call(planner.querySelectorAll(".planner-column .planner-block"), currentRow);
    if (!scroller || !rows.length || window.location.hash) return;
    var rowHeight = body().getBoundingClientRect().height / rowCount();
    scroller.scrollTop = Math.max(0, (Math.min.apply(null, rows) - 1 - 3) * rowHeight);
  }

  enhance(planner);
  scrollToFirstSession();
  window.setTimeout(poll, POLL_MS);
  document.getElementById("planner-keys").hidden = false;
})();
