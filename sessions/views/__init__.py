"""The sessions app's pages: the schedule (list, grid, session pages, exports, change log), my
schedule, now and next, the embed, feedback, and the personal parts of shared pages."""
