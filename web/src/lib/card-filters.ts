/** The Kanban's filter (the search, tag and assignee fields, or a saved filter applied as it is). */
export interface CardFilters {
  q: string;
  tag: string;
  assignee: string;
  /** A saved filter applied as it is (`savedFilter`): one that names more than the filters above. */
  saved?: string;
}
