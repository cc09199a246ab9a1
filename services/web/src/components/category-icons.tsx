// The categories' icons: inline SVG drawn here (24x24, stroked in the text's
// colour), as the navigation's are. Each is decorative: the category's name
// is always written beside it.
import type { Category } from '../api/costs';

const PATHS: Record<Category, string> = {
  service: 'M14.7 6.3a4 4 0 0 0-5.4 5.2L3.5 17.3l3.2 3.2 5.8-5.8a4 4 0 0 0 5.2-5.4l-2.6 2.6-2.4-.6-.6-2.4Z',
  repair: 'M13.5 10.5 5 19M11 4.5l3-1.5 6.5 6.5-1.5 3-2-2-2.5 2.5-4-4L13 6.5Z',
  tyres: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18ZM12 8.5a3.5 3.5 0 1 0 0 7 3.5 3.5 0 0 0 0-7ZM12 3v5.5M12 15.5V21M3 12h5.5M15.5 12H21',
  inspection: 'M9 3.5h6v3H9ZM7 5H5v16h14V5h-2M8.5 13.5l2.5 2.5 4.5-5',
  insurance: 'M12 3 4.5 6v5.5c0 4.4 3.1 7.9 7.5 9.5 4.4-1.6 7.5-5.1 7.5-9.5V6Z',
  tax: 'M6 3h9l4 4v14H6ZM14.5 3v4.5H19M9.5 17l5.5-6M10 11.5h.01M14.5 16.5h.01',
  parking: 'M4 4h16v16H4ZM10 17V7h3.2a3 3 0 0 1 0 6H10',
  toll: 'M4 21V7M2.5 21h3M4 9.5h16v3H4M8.5 9.5l-2 3M13 9.5l-2 3M17.5 9.5l-2 3',
  wash: 'M12 3.5s5.5 6 5.5 10.5a5.5 5.5 0 0 1-11 0C6.5 9.5 12 3.5 12 3.5Z',
  fine: 'M12 3.5 2.5 20h19ZM12 9.5v5M12 17.2h.01',
  accessory: 'M12 3.5l2.6 5.3 5.9.9-4.3 4.1 1 5.8L12 16.8l-5.2 2.8 1-5.8-4.3-4.1 5.9-.9Z',
  other: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18ZM8 12h.01M12 12h.01M16 12h.01',
};

export function CategoryIcon({ category }: { category: Category }) {
  return (
    <svg class="icon cat-icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false"
      fill="none" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" stroke-linejoin="round">
      <path d={PATHS[category] ?? PATHS.other} />
    </svg>
  );
}
