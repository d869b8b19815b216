-- The stock analysis cache was never read or written: analyses live with the media in media-library.
drop table if exists analysis_cache;
