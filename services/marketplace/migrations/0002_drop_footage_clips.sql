-- Never used: the marketplace issue defines its own tables when it builds the feature.
drop table if exists footage_clips;
