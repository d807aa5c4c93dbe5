"""The speakers app's pages: public speaker pages, and a speaker's own (invitation, My talks,
profile, slides and links, availability)."""
