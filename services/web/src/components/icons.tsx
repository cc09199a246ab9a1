// The navigation's icons: inline SVG drawn here (24x24, stroked in the
// text's colour), so nothing is fetched for them and they follow the
// scheme. Each is decorative: its link or button carries the name.

/** The destinations that have an icon. */
export type IconName = 'home' | 'add' | 'history' | 'costs' | 'statistics' | 'vehicles' | 'manuals' | 'ask' | 'settings' | 'more';

const PATHS: Record<IconName, string> = {
  home: 'M3 11 12 3l9 8M5 9.5V21h5v-6h4v6h5V9.5',
  add: 'M12 3a9 9 0 1 0 0 18 9 9 0 0 0 0-18ZM12 7.5v9M7.5 12h9',
  history: 'M3.5 12a8.5 8.5 0 1 0 2.5-6M3 3v4.5h4.5M12 7.5V12l3 2',
  costs: 'M4 6.5h16v11H4ZM4 10h16M7.5 14.5h3',
  statistics: 'M4 20h16M6.5 20v-6M11 20V9M15.5 20v-9M20 20V5',
  vehicles: 'M5 16.5h14M3.5 16.5v-4l2-5h13l2 5v4M3.5 16.5V19h3v-2.5M17.5 16.5V19h3v-2.5M6.5 13h.01M17.5 13h.01',
  manuals: 'M4 5.5A2.5 2.5 0 0 1 6.5 3H20v15H6.5A2.5 2.5 0 0 0 4 20.5ZM4 20.5A2.5 2.5 0 0 0 6.5 23H20v-5',
  ask: 'M4 5h16v11H9l-5 4ZM9 10.5h.01M12 10.5h.01M15 10.5h.01',
  settings: 'M12 8.5a3.5 3.5 0 1 0 0 7 3.5 3.5 0 0 0 0-7ZM12 2v3M12 19v3M2 12h3M19 12h3M4.9 4.9 7 7M17 17l2.1 2.1M4.9 19.1 7 17M17 7l2.1-2.1',
  more: 'M5 12h.01M12 12h.01M19 12h.01',
};

export function Icon({ name }: { name: IconName }) {
  return (
    <svg class="icon" viewBox="0 0 24 24" width="24" height="24" aria-hidden="true" focusable="false"
      fill="none" stroke="currentColor" stroke-width={name === 'more' ? 3 : 1.8} stroke-linecap="round" stroke-linejoin="round">
      <path d={PATHS[name]} />
    </svg>
  );
}
